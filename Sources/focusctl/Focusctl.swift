import ArgumentParser
import FocusBridgeConfig
import FocusBridgeCore

/// `focusctl`: controls and inspects a running focus-bridge.
@main
struct Focusctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focusctl",
        abstract: "Control and inspect FocusBridge.",
        version: focusBridgeVersion,
        subcommands: [StatusCommand.self, FocusCommand.self, SilentCommand.self, SummaryCommand.self, HistoryCommand.self,
                      ExplainCommand.self, CheckConfigCommand.self, ReloadCommand.self, WatchCommand.self])
}
