import ArgumentParser
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeSystem
import FocusBridgeTime

/// `focusctl history`: every notification received, newest first.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "List the notifications received, newest first.")

    @OptionGroup var output: JSONOutput<JSONHelp.Array>

    /// Read as text (and any text taken, "-1" too), so a bad number gets one sentence.
    @Option(parsing: .unconditional, help: ArgumentHelp("At most this many, 1 to 1000 (default: 50).", valueName: "n"))
    var limit: String?

    @Option(help: ArgumentHelp("Only this application's (desktop entry or app name, any case).", valueName: "app"))
    var app: String = ""

    func run() throws {
        var limit: UInt32 = 50
        if let text = self.limit {
            guard let value = Int(text), value >= 1 else {
                ControlClient.fail("focusctl: --limit takes a whole number of 1 or more, not \"\(text)\".", code: 1)
            }
            limit = UInt32(min(value, Int(UInt32.max)))
        }
        if limit > HistoryReport.maxEntries {
            StandardStream.error.write("focusctl: --limit \(limit) is more than the \(HistoryReport.maxEntries) the daemon lists at once; showing at most \(HistoryReport.maxEntries).\n")
        }
        let (entries, text) = ControlClient().report([HistoryReport].self, .history(limit: limit, app: app))
        if output.json {
            print(text)
            return
        }
        guard !entries.isEmpty else {
            print(app.isEmpty ? "No notifications yet." : "No notifications from \(app.escapingControlCharacters).")
            return
        }
        let rows = entries.map { entry -> [String] in
            let received = Timestamp.parse(entry.received).map { LocalTime.string($0, always: true) } ?? "?"
            let summary = entry.summary.replacing("\n", with: " ")
            let app = entry.via.map { "\(entry.app) via \($0)" } ?? entry.app
            return ["\(entry.id)", received, app, entry.level, Self.fate(entry), String(summary.prefix(60))]
        }
        print(Table.render([["ID", "RECEIVED", "APP", "LEVEL", "FATE", "SUMMARY"]] + rows))
    }

    /// `held-focus → in digest 12 at 18:02 → replayed by Show All`, in local time.
    static func fate(_ entry: HistoryReport) -> String {
        guard let decision = DeliveryOutcome(rawValue: entry.decision) else { return entry.fate ?? entry.decision }
        return Fate.line(decision: decision, steps: (entry.steps ?? []).map(\.fateStep), closeReason: entry.closeReason,
                         closed: entry.closed.flatMap(Timestamp.parse),
                         own: entry.app == Fate.ownApp,
                         time: { LocalTime.string($0) })
    }
}
