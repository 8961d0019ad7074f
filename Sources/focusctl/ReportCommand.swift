import ArgumentParser
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeSystem
import FocusBridgeTime

/// `focusctl report`: what interrupted you in the last days, per app, what became of it, and
/// what to change (focusctl(1), REPORT).
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "What interrupted you in the last days: per app, what became of it, and suggestions.")

    /// Read as text (and any text taken, "-1" too), so a bad number gets one sentence.
    @Option(parsing: .unconditional, help: ArgumentHelp("Cover the last n days, 1 to history-days (default: 7).",
                                                        valueName: "n"))
    var days: String?

    @Option(help: ArgumentHelp("Also draw the report as a picture (SVG) in this file.", valueName: "file"))
    var svg: String?

    @OptionGroup var output: JSONOutput<JSONHelp.Report>

    func run() throws {
        var asked: UInt32 = 0
        if let text = days {
            guard let value = UInt32(text), value >= 1 else {
                ControlClient.fail("focusctl: --days takes a whole number of days from 1 to what history keeps "
                                   + "(history-days), not \"\(text)\".".escapingControlCharacters, code: 1)
            }
            asked = value
        }
        // History is counted a slice at a time between the daemon's other work: more than the usual 10 s.
        let (report, text) = ControlClient().report(ActivityReport.self, .report(days: asked),
                                                    timeoutMilliseconds: 120_000)
        if let svg { Self.write(report, to: svg) }
        if output.json { return print(text) }
        Self.show(report)
        if let svg { print("\nThe picture is in \(svg.escapingControlCharacters).") }
    }

    /// A time of the report (UTC) in local time, as people read it.
    static func local(_ time: String) -> String {
        Timestamp.parse(time).map { LocalTime.string($0, always: true) } ?? time
    }

    static func show(_ report: ActivityReport) {
        let days = report.days == 1 ? "day" : "\(report.days) days"
        let apps = report.apps.count
        print("Notifications of the last \(days), since \(local(report.since)): \(report.totals.total)"
              + (report.totals.total == 0 ? "." : " from \(apps) app\(apps == 1 ? "" : "s")"
                 + (report.unlisted > 0 ? " and more" : "") + "."))
        guard report.totals.total > 0 else {
            return print("Nothing to count yet: focusctl history lists what arrives.")
        }
        let busiest = report.apps.first?.counts.total ?? 0
        var rows = [["APP", "NOTIFICATIONS", "TOTAL", "TIME SENSITIVE", "WHAT BECAME OF THOSE SHOWN"]]
        for app in report.apps {
            rows.append([app.app, ActivityReport.bar(app.counts.total, of: busiest), "\(app.counts.total)",
                         "\(app.counts.timeSensitive.total)", ActivityReport.outcomesText(app.counts)])
        }
        if report.unlisted > 0 {
            rows.append(["(more apps)", "", "\(report.unlisted)", "", "counted in the total only"])
        }
        rows.append(["All apps", "", "\(report.totals.total)", "\(report.totals.timeSensitive.total)",
                     ActivityReport.outcomesText(report.totals)])
        print()
        print(Table.render(rows))
        let hours = report.totals.byHour
        if let peak = hours.max(), peak > 0, let hour = hours.firstIndex(of: peak) {
            print()
            print("By hour (\(report.timeZone)): 00 \(ActivityReport.sparkline(hours)) 23; "
                  + "the busiest \(Self.hour(hour))–\(Self.hour((hour + 1) % 24)) (\(peak))".escapingControlCharacters)
        }
        print()
        guard !report.suggestions.isEmpty else {
            return print("No suggestions: no app's figures call for a change (focusctl(1), REPORT, says when they do).")
        }
        print("Suggestions:")
        for suggestion in report.suggestions {
            print("  \(suggestion.why).".escapingControlCharacters)
            print("    \(suggestion.command)".escapingControlCharacters)
        }
    }

    private static func hour(_ hour: Int) -> String { (hour < 10 ? "0" : "") + "\(hour):00" }

    /// Writes the picture, or says in one sentence why it cannot (exit 1).
    static func write(_ report: ActivityReport, to path: String) {
        let subtitle = "From \(local(report.since)) to \(local(report.until)), local time; \(report.apps.count) app"
            + (report.apps.count == 1 ? "" : "s") + "; focusctl report"
        do {
            // `~/week.svg` as a person writes it, also where no shell expanded it.
            try AtomicFile.write(Array(report.svg(subtitle: subtitle).utf8), to: FilePath.standardized(path))
        } catch {
            ControlClient.fail("focusctl: cannot write the picture to \(path): \(error.description)", code: 1)
        }
    }
}
