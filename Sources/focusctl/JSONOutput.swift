import ArgumentParser

/// `--json`, declared once for every command that can print JSON (`@OptionGroup var output:
/// JSONOutput<…>`); the type parameter gives the flag's help, which says what that command prints.
struct JSONOutput<Help: JSONFlagHelp>: ParsableArguments {
    @Flag(help: ArgumentHelp(Help.text))
    var json = false
}

/// What `--json` prints, as its help says it.
protocol JSONFlagHelp {
    static var text: String { get }
}

/// The help texts of `--json`, one type each (more than one command prints the same kind).
enum JSONHelp {
    enum Array: JSONFlagHelp { static let text = "Print a JSON array." }
    enum Object: JSONFlagHelp { static let text = "Print one JSON object." }
    enum AppChange: JSONFlagHelp { static let text = "Print the app's entry after the change as JSON, with \"message\"." }
    enum Mute: JSONFlagHelp { static let text = "Print JSON: the mutes with --list, else the app's entry and \"message\"." }
    enum FateAction: JSONFlagHelp { static let text = "Print what was done as one JSON object." }
    enum FocusChange: JSONFlagHelp { static let text = "Print the status after the change as one JSON object, with \"ended\"." }
    enum Reload: JSONFlagHelp { static let text = "Print {\"reloaded\": true, \"focuses\": [names]}." }
    enum ShareState: JSONFlagHelp { static let text = "Print the state as one JSON object." }
    enum ShareForget: JSONFlagHelp { static let text = "Print {\"device\", \"message\"}." }
    enum Silent: JSONFlagHelp { static let text = "Print {\"silent\": true|false} (the state after the change)." }
    enum Status: JSONFlagHelp { static let text = "Print the status as one JSON object." }
    enum Delivered: JSONFlagHelp { static let text = "Print {\"delivered\": N}." }
    enum FocusNow: JSONFlagHelp { static let text = "Print the status's focus object, or null when none is on." }
    enum Doctor: JSONFlagHelp { static let text = "Print {\"ok\": true|false, \"checks\": [{\"check\", \"ok\", \"found\", \"fix\"}]}." }
    enum Review: JSONFlagHelp { static let text = "List the reviews due as one JSON object, and deliver none." }
    enum Report: JSONFlagHelp { static let text = "Print the report as one JSON object (the picture, with --svg, still goes to its file)." }
}
