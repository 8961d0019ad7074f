import ArgumentParser
import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeSystem
#if canImport(Glibc)
import Glibc
#endif

/// `focusctl`: controls and inspects a running focus-bridge.
@main
struct Focusctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focusctl",
        abstract: "Control and inspect FocusBridge.",
        version: focusBridgeVersion,
        subcommands: [StatusCommand.self, FocusCommand.self, DndCommand.self, SilentCommand.self, SummaryCommand.self, HistoryCommand.self, ReportCommand.self, ReviewCommand.self,
                      ExplainCommand.self, ShowCommand.self, DismissCommand.self, SnoozeCommand.self, DigestCommand.self,
                      AppsCommand.self, AppCommand.self, MuteCommand.self, UnmuteCommand.self,
                      CheckConfigCommand.self, ReloadCommand.self, WatchCommand.self, ShareCommand.self, DoctorCommand.self])

    /// A misspelt command word is answered before the parser's longer answer. The parser's
    /// own errors start as focusctl's do (`focusctl: …`, not `Error: …`), then its usage.
    static func main() {
        if let message = misspelt(Array(CommandLine.arguments.dropFirst())) {
            ControlClient.fail(message, code: ExitCode.validationFailure.rawValue)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                Glibc.exit(0)
            }
            if !message.isEmpty {
                let text = message.hasPrefix("Error: ") ? "focusctl: " + message.dropFirst("Error: ".count) : Substring(message)
                StandardStream.error.write(text + (text.hasSuffix("\n") ? "" : "\n"))
            }
            Glibc.exit(code.rawValue)
        }
    }

    /// "focusctl: unknown command 'stauts'; did you mean 'status'?" for a command word that is
    /// none of focusctl's (or of `focus`, `dnd`, `summary`), before the parser's longer answer.
    static func misspelt(_ arguments: [String]) -> String? {
        var command: ParsableCommand.Type = Focusctl.self
        var path = ["focusctl"]
        for word in arguments {
            let children = command.configuration.subcommands
            guard !children.isEmpty, !word.hasPrefix("-") else { return nil }
            let names = children.map { $0._commandName } + ["help"]
            guard let child = children.first(where: { $0._commandName == word }) else {
                if names.contains(word) { return nil }
                // summary's default subcommand (show) takes no word: anything else is misspelt.
                let suggestion = ClosestName.to(word, among: names)
                return "\(path.joined(separator: " ")): unknown command '\(word)'"
                    + (suggestion.map { "; did you mean '\($0)'?" } ?? "; \(path.joined(separator: " ")) --help lists them.")
            }
            command = child
            path.append(word)
        }
        return nil
    }
}
