import FocusBridgeConfig
import FocusBridgeCore

/// `focus-bridge`'s command line, read without a library: swift-argument-parser links
/// FoundationEssentials into whatever uses it, and the daemon links no Foundation to keep its
/// idle memory small (docs/BENCHMARKS.md). It reads the command line as argument-parser does:
/// `--name value` and `--name=value`, the last of a repeated option wins, `-h`/`--help` and
/// `--version` anywhere before `--` win over any mistake, everything after `--` is the daemon
/// command for spawn mode; the help text and the usage errors are laid out as argument-parser's
/// (a usage error starting `focus-bridge:`, as focusctl's start `focusctl:`).
struct FocusBridgeArguments: Equatable {
    var config: String?
    var downstream: DownstreamSettings.Mode?
    var downstreamName: String?
    var downstreamAddress: String?
    var stateDirectory: String?
    var replace = false
    var printDownstream = false
    /// What follows `--`: the daemon command for spawn mode.
    var command: [String] = []

    /// What the command line asks for.
    enum Request: Equatable {
        case run(FocusBridgeArguments)
        case help
        case version
    }

    /// Every option, in the order of the help text; the raw value is the long name.
    enum Option: String, CaseIterable {
        case config
        case downstream
        case downstreamName = "downstream-name"
        case downstreamAddress = "downstream-address"
        case stateDirectory = "state-dir"
        case replace
        case printDownstream = "print-downstream"
        case version
        case help

        /// The name of the value in the help (`--config <path>`); nil for a flag.
        var valueName: String? {
            switch self {
            case .config: "path"
            case .downstream: "mode"
            case .downstreamName: "name"
            case .downstreamAddress: "address"
            case .stateDirectory: "dir"
            case .replace, .printDownstream, .version, .help: nil
            }
        }

        var help: String {
            switch self {
            case .config: "The configuration file."
            case .downstream: "Where delivered notifications go: auto, spawn, name, address or log."
            case .downstreamName: "The daemon's bus name (name and address modes)."
            case .downstreamAddress: "The bus address of the daemon (address mode)."
            case .stateDirectory: "The state folder (default $XDG_STATE_HOME/focus-bridge)."
            case .replace: "Take org.freedesktop.Notifications from an owner that allows replacement."
            case .printDownstream:
                "Print the downstream that would be used and why, and whether org.freedesktop.Notifications is free, then exit."
            case .version: "Show the version."
            case .help: "Show help information."
            }
        }

        /// `--config <path>`, `-h, --help`: how the help and the errors name it.
        var label: String {
            let long = "--\(rawValue)" + (valueName.map { " <\($0)>" } ?? "")
            return self == .help ? "-h, \(long)" : long
        }
    }

    /// Reads the arguments (without the program's name).
    static func parse(_ arguments: [String]) throws(UsageError) -> Request {
        let end = arguments.firstIndex(of: "--") ?? arguments.endIndex
        let options = arguments[..<end]
        // Help, then the version, before anything else is looked at (also `--version=x`).
        let names = options.map { $0.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0] }
        if names.contains(where: { $0 == "-h" || $0 == "--help" || $0 == "-help" }) { return .help }
        if names.contains("--version") { return .version }

        var parsed = FocusBridgeArguments()
        if end < arguments.endIndex { parsed.command = Array(arguments[(end + 1)...]) }
        var index = options.startIndex
        while index < options.endIndex {
            let word = options[index]
            index += 1
            guard word.hasPrefix("-"), word != "-" else { throw UsageError("Unexpected argument '\(word)'") }
            let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            // `--name=` is `--name`, as for argument-parser.
            let attached = parts.count == 2 && !parts[1].isEmpty ? String(parts[1]) : nil
            guard name.hasPrefix("--"), let option = Option(rawValue: String(name.dropFirst(2))) else {
                let suggestion = ClosestName.to(name, among: Option.allCases.map { "--\($0.rawValue)" })
                throw UsageError("Unknown option '\(name)'" + (suggestion.map { ". Did you mean '\($0)'?" } ?? ""))
            }
            guard option.valueName != nil else {
                if let attached {
                    throw UsageError("The option '\(name)' does not take any value, but '\(attached)' was specified.")
                }
                if option == .replace { parsed.replace = true } else { parsed.printDownstream = true }
                continue
            }
            // A value is the rest of the word after `=`, or the next word unless it looks like
            // an option (`-` alone is a value, as for argument-parser).
            let value: String
            if let attached {
                value = attached
            } else if index < options.endIndex, !options[index].hasPrefix("-") || options[index] == "-" {
                value = options[index]
                index += 1
            } else {
                throw UsageError("Missing value for '\(option.label)'", help: "Help:  \(option.label)  \(option.help)")
            }
            switch option {
            case .config: parsed.config = value
            case .downstream:
                guard let mode = DownstreamSettings.Mode(rawValue: value) else {
                    let modes = DownstreamSettings.Mode.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError("--downstream must be one of \(modes) (not \"\(value)\").")
                }
                parsed.downstream = mode
            case .downstreamName: parsed.downstreamName = value
            case .downstreamAddress: parsed.downstreamAddress = value
            case .stateDirectory: parsed.stateDirectory = value
            case .replace, .printDownstream, .version, .help: break
            }
        }
        return .run(parsed)
    }

    static let usage = "focus-bridge "
        + Option.allCases.filter { $0 != .version && $0 != .help }.map { "[\($0.label)]" }.joined(separator: " ")
        + " -- [<command> ...]"

    /// `--help`: argument-parser's layout for 80 columns.
    static var helpText: String {
        var text = wrap("OVERVIEW: Own org.freedesktop.Notifications and forward to the real notification daemon.") + "\n"
        text += wrap("Everything after -- is the daemon command for spawn mode, e.g. `focus-bridge --downstream spawn -- dunst`.") + "\n"
        text += "USAGE: \(usage)\n\n"
        text += "ARGUMENTS:\n" + entry("<command>", "The daemon command for spawn mode.") + "\n"
        text += "OPTIONS:\n" + Option.allCases.map { entry($0.label, $0.help) }.joined() + "\n"
        return text
    }

    /// `  label  help`, the help from column 27 (on a line of its own after a long label).
    private static func entry(_ label: String, _ help: String) -> String {
        let column = 26
        let indent = String(repeating: " ", count: column)
        let lead = "  " + label
        let first = lead.count + 2 <= column ? lead + String(repeating: " ", count: column - lead.count) : lead + "\n" + indent
        return first + wrap(help, indent: indent, firstWidth: column)
    }

    /// The words of `text` on lines shorter than 80 characters, each after the first led by
    /// `indent`; `firstWidth` is how much of the first line is already taken.
    private static func wrap(_ text: String, indent: String = "", firstWidth: Int = 0) -> String {
        var lines: [String] = []
        var line = ""
        var width = firstWidth
        for word in text.split(separator: " ") {
            if !line.isEmpty, width + line.count + 1 + word.count >= 80 {
                lines.append(line)
                line = ""
                width = indent.count
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n" + indent) + "\n"
    }
}

/// A command line focus-bridge cannot run: one sentence, written with the usage (exit 64).
struct UsageError: Error, Equatable {
    let sentence: String
    /// The option's own help line, after a missing value.
    var help: String?

    init(_ sentence: String, help: String? = nil) {
        self.sentence = sentence
        self.help = help
    }

    /// What standard error gets: the sentence starts as every error of focus-bridge's does.
    var message: String {
        "focus-bridge: \(sentence)\n" + (help.map { "\($0)\n" } ?? "")
            + "Usage: \(FocusBridgeArguments.usage)\n  See 'focus-bridge --help' for more information.\n"
    }
}
