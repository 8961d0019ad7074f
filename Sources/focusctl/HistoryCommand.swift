import ArgumentParser
import FocusBridgeCore
import Foundation

/// `focusctl history`: every notification received, newest first.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "List the notifications received, newest first.")

    @Flag(help: "Print a JSON array.")
    var json = false

    @Option(help: ArgumentHelp("At most this many (default 50).", valueName: "n"))
    var limit: UInt32 = 50

    @Option(help: ArgumentHelp("Only this application's (desktop entry or app name, any case).", valueName: "app"))
    var app: String = ""

    func validate() throws {
        if limit == 0 { throw ValidationError("--limit must be at least 1.") }
    }

    func run() throws {
        let entries = try ControlClient().json("History", .tuple([.uint32(limit), .string(app)])) as? [[String: Any]] ?? []
        if json {
            print(JSONText.encode(entries))
            return
        }
        guard !entries.isEmpty else {
            print(app.isEmpty ? "No notifications yet." : "No notifications from \(app).")
            return
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let rows = entries.map { entry -> [String] in
            let received = (entry["received"] as? String).flatMap(JSONText.parseTimestamp).map(formatter.string) ?? "?"
            let summary = (entry["summary"] as? String ?? "").replacingOccurrences(of: "\n", with: " ")
            return ["\(entry["id"] as? Int ?? 0)", received, entry["app"] as? String ?? "",
                    entry["level"] as? String ?? "", entry["decision"] as? String ?? "", String(summary.prefix(60))]
        }
        print(Table.render([["ID", "RECEIVED", "APP", "LEVEL", "DECISION", "SUMMARY"]] + rows))
    }
}
