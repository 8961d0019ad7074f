import ArgumentParser
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeTime

/// `focusctl review [--json]`: the Time Sensitive review now, rather than on Monday at 10:00
/// (focusctl(1), REVIEW); with `--json`, only the list of what is due.
struct ReviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Ask now about the apps whose Time Sensitive notifications were mostly left alone.",
        discussion: "Without --json the reviews due are delivered (Keep or Turn Off, one notification per app); "
            + "with --json they are listed and nothing is delivered.")

    @OptionGroup var output: JSONOutput<JSONHelp.Review>

    func run() throws {
        // History is counted a slice at a time between the daemon's other work: more than the usual 10 s.
        let (report, text) = ControlClient().report(ReviewReport.self, .review(deliver: !output.json),
                                                    timeoutMilliseconds: 120_000)
        if output.json { return print(text) }
        Self.show(report)
    }

    static func show(_ report: ReviewReport) {
        let days = Int(TimeSensitiveReview.periodSeconds / 86_400)
        if report.apps.isEmpty {
            print("No app is due: none sent \(TimeSensitiveReview.fewestSent) or more Time Sensitive notifications in the "
                  + "last \(days) days with fewer than half of them acted on, or it was reviewed in that time already.")
        } else {
            print("Time Sensitive review of the last \(days) days:")
            var rows: [[String]] = []
            for app in report.apps {
                let what = app.state == ReviewMemory.State.waiting.rawValue
                    ? "waits for the Focus to end, or the next summary" : "asked now: Keep or Turn Off"
                rows.append(["  " + app.app, "\(app.sent) sent,", "\(app.acted) acted on:", what])
            }
            print(Table.render(rows))
        }
        let asked = Set(report.apps.map(\.app))
        let before = report.reviewed.filter { !asked.contains($0.app) }
        if !before.isEmpty {
            let names = before.map { "\($0.app) (\(Timestamp.parse($0.at).map { LocalTime.string($0) } ?? $0.at))" }
            print("Reviewed in these \(days) days, not asked again: \(names.joined(separator: ", ")).".escapingControlCharacters)
        }
        if let next = report.next.flatMap(Timestamp.parse) {
            print("Next weekly review: \(LocalTime.string(next)).")
        } else {
            print("The weekly review is off (time-sensitive-review = \"off\"); focusctl review still asks when told to.")
        }
    }
}
