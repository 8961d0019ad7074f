import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeStore
import Foundation
import Logging

/// What `focus-bridge`'s command line decides.
public struct ServiceOptions: Sendable {
    public var configuration: Configuration
    public var stateDirectory: String
    public var replace: Bool

    public init(configuration: Configuration, stateDirectory: String, replace: Bool) {
        self.configuration = configuration
        self.stateDirectory = stateDirectory
        self.replace = replace
    }

    /// `$XDG_STATE_HOME/focus-bridge`, default `~/.local/state/focus-bridge`.
    public static func defaultStateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state"
        return base + "/focus-bridge"
    }
}

/// The running service: sets up the store, the buses, the downstream and the names, runs the
/// main loop, and takes it all down again on SIGTERM or SIGINT.
public final class Service {
    private let options: ServiceOptions
    private let logger: Logger
    private var privateBus: PrivateBus?
    private var daemon: SpawnedDaemon?
    private var session: BusConnection?
    private var exitCode: Int32 = 0
    private var ownedNames: [String] = []
    /// Set once shutting down: what goes away from then on is expected.
    private var stopping = false

    public init(options: ServiceOptions, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Runs until stopped; returns the process exit code.
    public func run() -> Int32 {
        do {
            try start()
        } catch let error as StartupError {
            FileHandle.standardError.write(Data("focus-bridge: \(error.description)\n".utf8))
            stopDownstream()
            return 1
        } catch {
            FileHandle.standardError.write(Data("focus-bridge: \(error)\n".utf8))
            stopDownstream()
            return 1
        }
        MainLoop.run()
        return exitCode
    }

    private func start() throws {
        let store = try Store(directory: options.stateDirectory)
        let session: BusConnection
        do { session = try BusConnection.session() } catch {
            throw StartupError("cannot connect to the session bus (\(error.message)); is DBUS_SESSION_BUS_ADDRESS set?")
        }
        self.session = session
        let settings = options.configuration.downstream
        let plan: DownstreamPlan
        do {
            plan = try DownstreamPlan.resolve(settings, environment: ProcessInfo.processInfo.environment,
                                              nameOwner: session.nameOwner)
        } catch let error as PlanError { throw StartupError(error.description) }
        logger.info("downstream: \(plan.mode) (\(plan.reason))")
        let downstream = try makeDownstream(plan, passthroughNames: settings.passthroughNames)

        let bridge = try Bridge(bus: session, downstream: downstream, store: store, logger: logger)
        try NotificationsInterface.export(on: session, to: bridge)
        try ControlInterface.export(on: session, bridge: bridge, store: store)
        downstream.passthrough?.install(on: session)

        try own(NotificationsInterface.busName, on: session, replace: options.replace)
        for name in [ControlInterface.busName] + (downstream.passthrough?.extraNames ?? []) {
            try own(name, on: session, replace: options.replace)
        }
        session.subscribe(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameLost",
                          path: "/org/freedesktop/DBus") { [weak self] signal in
            guard let self, let name = signal.parameters.child(0).string, self.ownedNames.contains(name) else { return }
            self.logger.error("lost the bus name \(name) to another process; exiting")
            self.ownedNames.removeAll { $0 == name }
            self.stop(exitCode: 1)
        }
        session.onClose { [weak self] in
            self?.logger.error("the session bus closed the connection; exiting")
            self?.stop(exitCode: 1)
        }
        for signal in [SIGTERM, SIGINT] {
            MainLoop.onSignal(signal) { [weak self] in self?.stop(exitCode: 0) }
        }
        downstream.start()
        daemon?.start()
        logger.info("serving org.freedesktop.Notifications as \(session.uniqueName)")
    }

    private func makeDownstream(_ plan: DownstreamPlan, passthroughNames: [String]) throws -> Downstream {
        switch plan.target {
        case .log:
            return LogDownstream()
        case .name(let name):
            return BusDownstream(mode: "name", target: name, connection: try BusConnection.session(),
                                 daemonName: name, passthroughNames: nil, logger: logger)
        case .address(let address, let name):
            let connection: BusConnection
            do { connection = try BusConnection.connect(address: address) } catch {
                throw StartupError("cannot connect to the daemon's bus at \(address): \(error.message)")
            }
            watchDownstreamBus(connection)
            return BusDownstream(mode: "address", target: name, connection: connection, daemonName: name,
                                 passthroughNames: passthroughNames, logger: logger)
        case .spawn(let command):
            let bus = try PrivateBus(logger: logger)
            privateBus = bus
            bus.onExit { [weak self] how in
                self?.logger.error("the private bus \(how); exiting")
                self?.stop(exitCode: 1)
            }
            let connection = try BusConnection.connect(address: bus.address)
            daemon = SpawnedDaemon(command: command, busAddress: bus.address, logger: logger)
            return BusDownstream(mode: "spawn", target: command.joined(separator: " "), connection: connection,
                                 daemonName: NotificationsInterface.busName, passthroughNames: passthroughNames,
                                 logger: logger)
        }
    }

    private func watchDownstreamBus(_ connection: BusConnection) {
        connection.onClose { [weak self] in
            self?.logger.error("the daemon's bus closed the connection; exiting")
            self?.stop(exitCode: 1)
        }
    }

    /// Takes a bus name, or explains who has it and how to put that daemon behind the bridge.
    private func own(_ name: String, on session: BusConnection, replace: Bool) throws {
        let result: BusConnection.NameRequestResult
        do { result = try session.requestName(name, replaceExisting: replace) } catch {
            throw StartupError("cannot ask for the name \(name): \(error.message)")
        }
        switch result {
        case .primaryOwner, .alreadyOwner:
            ownedNames.append(name)
        case .exists, .inQueue:
            throw StartupError(Self.conflictMessage(name: name, session: session, replace: replace))
        }
    }

    static func conflictMessage(name: String, session: BusConnection, replace: Bool) -> String {
        let owner = session.nameOwner(name) ?? "another connection"
        let pid = session.processID(of: owner)
        let program = pid.flatMap { SenderDirectory.identity(ofProcess: $0).executable } ?? "an unknown program"
        let who = "\(program) (PID \(pid.map(String.init) ?? "unknown"), \(owner))"
        if name == NotificationsInterface.busName {
            return "\(name) is already owned by \(who)"
                + (replace ? ", which does not allow replacement" : "")
                + "; stop it and let focus-bridge run it behind itself "
                + "(`focus-bridge --downstream spawn -- \(program == "an unknown program" ? "DAEMON" : program)`)"
                + (replace ? "." : ", or start focus-bridge with --replace if it allows replacement.")
        }
        return "\(name) is already owned by \(who); is another focus-bridge running?"
    }

    /// Releases the names, stops the daemon and its bus, and ends the main loop.
    private func stop(exitCode: Int32) {
        guard !stopping else { return }
        stopping = true
        self.exitCode = exitCode
        if let session, !session.isClosed {
            for name in ownedNames {
                _ = try? session.callSync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                          "ReleaseName", .tuple([.string(name)]), replyType: "(u)",
                                          timeoutMilliseconds: 1_000)
            }
        }
        ownedNames.removeAll()
        stopDownstream()
        MainLoop.quit()
    }

    private func stopDownstream() {
        daemon?.stop()
        daemon = nil
        privateBus?.stop()
        privateBus = nil
    }
}

/// A reason the service cannot start, said in one sentence.
struct StartupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
