import ArgumentParser
import FocusBridgeCore
import FocusBridgeDBus
import Foundation

/// `focusctl focus on|off|list`.
struct FocusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus", abstract: "Turn a Focus on or off, or list them.",
        subcommands: [On.self, Off.self, List.self])

    struct On: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "on",
            abstract: "Turn a Focus on (until the next boundary of the schedules, unless --for or --until).")

        @Argument(help: "The Focus, as named in the configuration.")
        var name: String

        @Option(name: .customLong("for"), help: ArgumentHelp("For this long: 90m, 1h30m, 2h.", valueName: "duration"))
        var duration: String?

        @Option(help: ArgumentHelp("Until this time of day (HH:MM).", valueName: "time"))
        var until: String?

        func validate() throws {
            if duration != nil && until != nil { throw ValidationError("Give --for or --until, not both.") }
        }

        /// A bad time is refused here with one sentence and exit 1, before anything is sent.
        func run() throws {
            var seconds: TimeInterval = 0
            if let duration {
                guard let value = DurationText.seconds(duration) else {
                    ControlClient.fail("focusctl: --for takes a duration such as 90m, 1h30m or 2h, not \"\(duration)\".", code: 1)
                }
                guard value <= TimeBounds.longestDuration else {
                    ControlClient.fail("focusctl: --for takes at most 366 days (366d), not \"\(duration)\".", code: 1)
                }
                seconds = value
            }
            if let until, TimeOfDay(until) == nil {
                ControlClient.fail("focusctl: --until takes a time of day as HH:MM, not \"\(until)\".", code: 1)
            }
            let (status, _) = ControlClient().report(StatusReport.self, "FocusOn",
                                                     .tuple([.string(name), .double(seconds), .string(until ?? "")]))
            print(FocusCommand.describe(status.focus))
        }
    }

    struct Off: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "off",
                                                        abstract: "Turn the Focus off (until the next boundary of the schedules).")

        func run() throws {
            let (status, _) = ControlClient().report(StatusReport.self, "FocusOff")
            print(FocusCommand.describe(status.focus))
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the Focus profiles.")

        @Flag(help: "Print a JSON array.")
        var json = false

        func run() throws {
            let (focuses, text) = ControlClient().report([FocusListReport].self, "FocusList")
            if json {
                print(text)
                return
            }
            guard !focuses.isEmpty else {
                print("No Focus is configured ([focus.NAME] tables in the configuration file).")
                return
            }
            let rows = focuses.map { focus -> [String] in
                let schedule = focus.schedule.map { "\($0.days.joined(separator: ",")) \($0.start)–\($0.end)" }
                    .joined(separator: "; ")
                let allowed = focus.apps.map { "allows " + ($0.isEmpty ? "no app" : $0.joined(separator: ", ")) }
                    ?? focus.silence.map { "silences " + $0.joined(separator: ", ") } ?? ""
                return [focus.active ? "*" : " ", focus.name, allowed, schedule.isEmpty ? "by hand" : schedule]
            }
            print(Table.render(rows))
        }
    }

    /// "Work is on until 17:30 (manual)." / "No Focus is on."
    static func describe(_ focus: StatusReport.Focus?) -> String {
        guard let focus else { return "No Focus is on." }
        var text = "\(focus.name) is on"
        if let until = focus.until.flatMap(Timestamp.parse) { text += " until \(LocalTime.string(until))" }
        return text + " (\(focus.source))."
    }
}
