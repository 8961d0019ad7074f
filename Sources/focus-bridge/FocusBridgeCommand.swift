import ArgumentParser
import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeServer
import Foundation
import Logging

/// `focus-bridge`: parses the command line, loads the configuration, runs the service.
@main
struct FocusBridgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus-bridge",
        abstract: "Own org.freedesktop.Notifications and forward to the real notification daemon.",
        discussion: "Everything after -- is the daemon command for spawn mode, e.g. `focus-bridge --downstream spawn -- dunst`.",
        version: focusBridgeVersion)

    @Option(name: .long, help: ArgumentHelp("The configuration file.", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Where delivered notifications go: auto, spawn, name, address or log.", valueName: "mode"))
    var downstream: String?

    @Option(name: .customLong("downstream-name"), help: ArgumentHelp("The daemon's bus name (name and address modes).", valueName: "name"))
    var downstreamName: String?

    @Option(name: .customLong("downstream-address"), help: ArgumentHelp("The bus address of the daemon (address mode).", valueName: "address"))
    var downstreamAddress: String?

    @Option(name: .customLong("state-dir"), help: ArgumentHelp("The state folder (default $XDG_STATE_HOME/focus-bridge).", valueName: "dir"))
    var stateDirectory: String?

    @Flag(help: "Take org.freedesktop.Notifications from an owner that allows replacement.")
    var replace = false

    @Flag(name: .customLong("print-downstream"), help: "Print the downstream that would be used, and why, then exit.")
    var printDownstream = false

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The daemon command for spawn mode.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        if let downstream, DownstreamSettings.Mode(rawValue: downstream) == nil {
            throw ValidationError("--downstream must be one of auto, spawn, name, address, log (not \"\(downstream)\").")
        }
    }

    func run() throws {
        let path = config ?? Configuration.defaultPath()
        var configuration: Configuration
        do { configuration = try Configuration.load(path: path) } catch {
            FileHandle.standardError.write(Data("\(error.description)\n".utf8))
            throw ExitCode(1)
        }
        // The command line wins over the file, now and on every reload.
        let (mode, name, address, command) = (downstream, downstreamName, downstreamAddress, command)
        let override: @Sendable (inout DownstreamSettings) -> Void = { settings in
            if let mode { settings.mode = DownstreamSettings.Mode(rawValue: mode)! }
            if let name { settings.name = name }
            if let address { settings.address = address }
            if !command.isEmpty { settings.command = command }
        }
        override(&configuration.downstream)

        if printDownstream {
            let session = try? BusConnection.session()
            do {
                let plan = try DownstreamPlan.resolve(configuration.downstream, environment: ProcessInfo.processInfo.environment,
                                                      nameOwner: { session?.nameOwner($0) })
                print("\(plan.mode): \(plan.targetDescription) (\(plan.reason))")
                return
            } catch {
                FileHandle.standardError.write(Data("focus-bridge: \(error)\n".utf8))
                throw ExitCode(1)
            }
        }

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = ProcessInfo.processInfo.environment["FOCUS_BRIDGE_DEBUG"] == nil ? .info : .debug
            return handler
        }
        let options = ServiceOptions(configuration: configuration, configPath: path,
                                     stateDirectory: stateDirectory ?? ServiceOptions.defaultStateDirectory(),
                                     replace: replace, downstreamOverride: override)
        let code = Service(options: options, logger: Logger(label: "focus-bridge")).run()
        if code != 0 { throw ExitCode(code) }
    }
}
