import ArgumentParser
import FocusBridgeCore

/// `focusctl`: controls and inspects a running focus-bridge.
@main
struct Focusctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focusctl",
        abstract: "Control and inspect FocusBridge.",
        version: focusBridgeVersion,
        subcommands: [StatusCommand.self, HistoryCommand.self, ExplainCommand.self, CheckConfigCommand.self,
                      ReloadCommand.self, SilentCommand.self])
}
