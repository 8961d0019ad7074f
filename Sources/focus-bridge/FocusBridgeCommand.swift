import FocusBridgeConfig
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import FocusBridgeServer
import FocusBridgeSystem
#if canImport(Glibc)
import Glibc
#endif
import Logging

/// `focus-bridge`: reads the command line (`FocusBridgeArguments`), loads the configuration,
/// runs the service.
@main
enum FocusBridgeCommand {
    static func main() {
        let arguments: FocusBridgeArguments
        do {
            switch try FocusBridgeArguments.parse(Array(CommandLine.arguments.dropFirst())) {
            case .run(let parsed): arguments = parsed
            case .help:
                StandardStream.output.write(FocusBridgeArguments.helpText)
                exit(0)
            case .version:
                StandardStream.output.write("\(focusBridgeVersion)\n")
                exit(0)
            }
        } catch {
            StandardStream.error.write(error.message)
            exit(64)  // EX_USAGE, as argument-parser ends
        }
        exit(run(arguments))
    }

    /// Runs focus-bridge as `arguments` ask; the exit status.
    static func run(_ arguments: FocusBridgeArguments) -> Int32 {
        // Every file focus-bridge creates (state database, -wal, -shm, lock, private bus config)
        // is the user's alone; spawned programs get the umask back (Subprocess).
        Subprocess.childUmask = umask(0o077)
        let path: String
        let state: String
        do {
            path = try arguments.config ?? EnvironmentPaths.configFile()
            state = try arguments.stateDirectory ?? EnvironmentPaths.stateFolder()
        } catch {
            StandardStream.error.write("focus-bridge: \(error)\n")
            return 1
        }
        var configuration: Configuration
        do { configuration = try Configuration.load(path: path) } catch {
            StandardStream.error.write("\(error.description)\n")
            return 1
        }
        // The command line wins over the file, now and on every reload.
        let (mode, name, address, command) = (arguments.downstream, arguments.downstreamName,
                                             arguments.downstreamAddress, arguments.command)
        let override: @Sendable (inout DownstreamSettings) -> Void = { settings in
            if let mode { settings.mode = mode }
            if let name { settings.name = name }
            if let address { settings.address = address }
            if !command.isEmpty { settings.command = command }
        }
        override(&configuration.downstream)

        if arguments.printDownstream {
            return printPlan(configuration, replace: arguments.replace)
        }

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = Environment.variable("FOCUS_BRIDGE_DEBUG") == nil ? .info : .debug
            return handler
        }
        let options = ServiceOptions(configuration: configuration, configPath: path,
                                     stateDirectory: state,
                                     replace: arguments.replace, downstreamOverride: override)
        return Service(options: options, logger: Logger(label: "focus-bridge")).run()
    }

    /// `--print-downstream`: the plan on standard output as `MODE: TARGET (REASON)`, always when
    /// there is one (with a daemon in the way: the plan once it is stopped); when
    /// org.freedesktop.Notifications already has an owner, one sentence about it on standard error.
    /// 1 when focus-bridge could not start as asked (no plan, or a name it would not get).
    private static func printPlan(_ configuration: Configuration, replace: Bool) -> Int32 {
        let environment = Environment.all
        let session = SessionBusAddress.isKnown() ? try? VariantConnection.session() : nil
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
            return 1
        }
        print(plan.line)
        guard let owner = NameOwner.lookup("org.freedesktop.Notifications", nameOwner: nameOwner,
                                           processID: processID) else { return 0 }
        switch owner.kind {
        case .other where replace, .replaceableDaemon where replace:
            StandardStream.error.write(
                "focus-bridge: org.freedesktop.Notifications is owned by \(owner.described); --replace takes it over if it allows replacement\(plan.evicted == nil ? "" : ", and runs the same command behind the bridge").\n")
            return 0
        default:
            StandardStream.error.write(
                "focus-bridge: \(owner.conflictSentence(replace: false))\n")
            return 1
        }
    }
}
