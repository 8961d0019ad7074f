import ArgumentParser
import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeServer
import FocusBridgeSystem
#if canImport(Glibc)
import Glibc
#endif
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

    @Flag(name: .customLong("print-downstream"),
          help: "Print the downstream that would be used and why, and whether org.freedesktop.Notifications is free, then exit.")
    var printDownstream = false

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The daemon command for spawn mode.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        if let downstream, DownstreamSettings.Mode(rawValue: downstream) == nil {
            throw ValidationError("--downstream must be one of auto, spawn, name, address, log (not \"\(downstream)\").")
        }
    }

    func run() throws {
        // Every file focus-bridge creates (state database, -wal, -shm, lock, private bus config)
        // is the user's alone; spawned programs get the umask back (Subprocess).
        Subprocess.childUmask = umask(0o077)
        let path: String
        let state: String
        do {
            path = try config ?? EnvironmentPaths.configFile()
            state = try stateDirectory ?? EnvironmentPaths.stateFolder()
        } catch {
            StandardStream.error.write("focus-bridge: \(error)\n")
            throw ExitCode(1)
        }
        var configuration: Configuration
        do { configuration = try Configuration.load(path: path) } catch {
            StandardStream.error.write("\(error.description)\n")
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
            try printPlan(configuration)
            return
        }

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = Environment.variable("FOCUS_BRIDGE_DEBUG") == nil ? .info : .debug
            return handler
        }
        let options = ServiceOptions(configuration: configuration, configPath: path,
                                     stateDirectory: state,
                                     replace: replace, downstreamOverride: override)
        let code = Service(options: options, logger: Logger(label: "focus-bridge")).run()
        if code != 0 { throw ExitCode(code) }
    }

    /// `--print-downstream`: the plan on standard output as `MODE: TARGET (REASON)`, always when
    /// there is one (with a daemon in the way: the plan once it is stopped); when
    /// org.freedesktop.Notifications already has an owner, one sentence about it on standard error.
    /// Exits 1 when focus-bridge could not start as asked (no plan, or a name it would not get).
    private func printPlan(_ configuration: Configuration) throws {
        let environment = Environment.all
        let session = SessionBusAddress.isKnown() ? try? BusConnection.session() : nil
        if session == nil {
            StandardStream.error.write(
                "focus-bridge: no session bus answers (DBUS_SESSION_BUS_ADDRESS); GNOME Shell and running daemons cannot be seen\n")
        }
        let nameOwner: (String) -> String? = { session?.nameOwner($0) }
        let processID: (String) -> UInt32? = { session?.processID(of: $0) }
        let plan: DownstreamPlan
        do {
            plan = try DownstreamPlan.resolve(configuration.downstream, environment: environment,
                                              nameOwner: nameOwner, processID: processID, replacing: replace)
        } catch {
            if let planned = (error as? PlanError)?.plan { print(planned.line) }
            StandardStream.error.write("focus-bridge: \(error)\n")
            throw ExitCode(1)
        }
        print(plan.line)
        guard let owner = NameOwner.lookup("org.freedesktop.Notifications", nameOwner: nameOwner,
                                           processID: processID) else { return }
        switch owner.kind {
        case .other where replace, .replaceableDaemon where replace:
            StandardStream.error.write(
                "focus-bridge: org.freedesktop.Notifications is owned by \(owner.described); --replace takes it over if it allows replacement\(plan.evicted == nil ? "" : ", and runs the same command behind the bridge").\n")
        default:
            StandardStream.error.write(
                "focus-bridge: \(DownstreamPlan.conflictSentence(owner: owner, replace: false))\n")
            throw ExitCode(1)
        }
    }
}
