import FocusBridgeConfig
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import FocusBridgeStore
import FocusBridgeSystem
import FocusBridgeTime
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// What `focus-bridge`'s command line decides.
public struct ServiceOptions: Sendable {
    public var configuration: Configuration
    /// Where the configuration came from: reloaded from here.
    public var configPath: String
    /// Command-line settings that win over the file's on every reload.
    public var downstreamOverride: @Sendable (inout DownstreamSettings) -> Void
    public var stateDirectory: String
    public var replace: Bool

    public init(configuration: Configuration, configPath: String, stateDirectory: String, replace: Bool,
                downstreamOverride: @escaping @Sendable (inout DownstreamSettings) -> Void = { _ in }) {
        self.configuration = configuration
        self.configPath = configPath
        self.downstreamOverride = downstreamOverride
        self.stateDirectory = stateDirectory
        self.replace = replace
    }

    /// `$XDG_STATE_HOME/focus-bridge`, default `~/.local/state/focus-bridge` (from a dictionary;
    /// the binary reads the environment through `EnvironmentPaths.stateFolder`, which refuses
    /// an unset HOME and paths that are not UTF-8).
    public static func defaultStateDirectory(environment: [String: String] = Environment.all) -> String {
        let base = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? Environment.homeDirectory) + "/.local/state"
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
    /// The session services the daemon sees on its private bus (spawn mode).
    private var sessionRelays: [SessionRelay] = []
    private var session: VariantConnection?
    /// The connection that owns org.freedesktop.Notifications (and the passthrough names): the
    /// hot path on sd-bus. Control1, the tray and the badges stay on `session`.
    private var notifications: MessageConnection?
    private var bridge: Bridge?
    private var focus: FocusController?
    private var review: ReviewController?
    private var control: ControlInterface?
    private var tray: Tray?
    private var configWatch: ConfigWatch?
    private var windows: WindowWatch?
    private var screenLock: ScreenLock?
    private var systemBus: VariantConnection?
    private var share: ShareFolder?
    /// Held for the whole run: the state folder's lock (nil while the folder cannot be used).
    private var stateFolder: StateFolder?
    private var store: Store?
    private var stateRetryTimer = SourceID.none
    private var reloadTimer = SourceID.none
    private var exitCode: Int32 = 0
    /// The names owned on `session` and on `notifications`.
    private var ownedNames: [String] = []
    private var ownedFastNames: [String] = []
    /// Names asked for that another process has: given up too when stopping.
    private var queuedFastNames: [String] = []
    /// Set once shutting down: what goes away from then on is expected.
    private var stopping = false
    /// The configuration file as it was last refused, while it stays refused: `focusctl status`,
    /// `doctor` and the status bar show it, not only the log.
    private var refusal: StatusReport.Config.Refusal?

    public init(options: ServiceOptions, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Runs until stopped; returns the process exit code.
    public func run() -> Int32 {
        do {
            try start()
        } catch let error as StartupError {
            StandardStream.error.write("focus-bridge: \(error.description)\n")
            stopDownstream()
            return 1
        } catch {
            StandardStream.error.write("focus-bridge: \(error)\n")
            stopDownstream()
            return 1
        }
        MainLoop.run()
        return exitCode
    }

    private func start() throws {
        try SessionEnvironment.checkBusAddress()
        let store = try openStore()
        self.store = store
        let session: VariantConnection
        do { session = try VariantConnection.session() } catch {
            throw StartupError("cannot connect to the session bus (\(error.message)); is DBUS_SESSION_BUS_ADDRESS set?")
        }
        self.session = session
        let notifications: MessageConnection
        do { notifications = try MessageConnection.session() } catch {
            throw StartupError("cannot connect to the session bus (\(error.message)); is DBUS_SESSION_BUS_ADDRESS set?")
        }
        self.notifications = notifications
        let settings = options.configuration.downstream
        let plan: DownstreamPlan
        do {
            // With --replace, the owner's command is read now, before the name (and the owner) goes.
            plan = try DownstreamPlan.resolve(settings, environment: Environment.all,
                                              nameOwner: session.nameOwner, processID: { session.processID(of: $0) },
                                              replacing: options.replace)
        } catch let error as PlanError { throw StartupError(error.description) }
        logger.info("downstream: \(plan.mode) (\(plan.reason))")
        let previousOwner = options.replace
            ? plan.evicted ?? NameOwner.lookup(NotificationsInterface.busName, nameOwner: session.nameOwner,
                                               processID: { session.processID(of: $0) })
            : nil
        let downstream = try makeDownstream(plan)

        let bridge = try Bridge(bus: session, notificationBus: notifications, downstream: downstream, store: store,
                                settings: options.configuration.policy, logger: logger)
        self.bridge = bridge
        let focus = FocusController(bridge: bridge, store: store, logger: logger)
        self.focus = focus
        let review = ReviewController(bridge: bridge, store: store, timeZone: focus.timeZone, logger: logger)
        self.review = review
        let control = ControlInterface(bus: session, bridge: bridge, store: store, focus: focus,
                                       configPath: options.configPath, reload: { [weak self] in self?.reload() })
        control.config = { [weak self] in
            guard let self else { return nil }
            return StatusReport.Config(path: self.options.configPath, refused: self.refusal)
        }
        control.log = LogPlace.read()
        control.review = review
        control.downstreamReason = plan.reason
        let tray = Tray(bus: session, bridge: bridge, focus: focus, logger: logger,
                        reload: { [weak self] in self?.reload() })
        self.tray = tray
        bridge.stateChanged = { [weak control, weak tray] in control?.announce(); tray?.refresh() }
        bridge.senders.connectionLeft = { [weak control, weak bridge] name in
            control?.connectionLeft(name)
            bridge?.inhibitions.connectionLeft(name)
        }
        var wasInhibited = false
        bridge.inhibitions.changed = { [weak bridge, weak focus] in
            guard let bridge else { return }
            let inhibited = bridge.inhibitions.isInhibited
            focus?.inhibitionChanged(started: inhibited && !wasInhibited)
            if inhibited != wasInhibited { bridge.signals.inhibitedChanged(inhibited) }
            wasInhibited = inhibited
        }
        focus.changed = { [weak control, weak tray] in control?.announce(); tray?.refresh() }
        let share = ShareFolder(store: store, logger: logger) { [weak focus] in focus?.applyShared($0) ?? false }
        focus.changedByHand = { [weak share] change, endGiven in share?.publish(change, endGiven: endGiven) }
        control.share = share
        self.share = share
        try FdoDoor.export(on: notifications, to: bridge)
        let servesGtk = GtkDoor.wanted(xdgCurrentDesktop: Environment.variable("XDG_CURRENT_DESKTOP"),
                                       nameHasOwner: session.nameOwner(GtkNotificationsInterface.busName) != nil)
        if servesGtk {
            let shell = GtkShell(calls: notifications, logger: logger)
            bridge.serveGtk(shell)
            try GtkDoor.export(on: notifications, to: bridge)
            shell.start()
        }
        try control.export()
        self.control = control
        try downstream.passthrough?.install(on: notifications, senders: bridge.senders)

        // Before the names: a SIGTERM that comes as soon as they appear must find its handler.
        for signal in [SIGTERM, SIGINT] {
            MainLoop.onSignal(signal) { [weak self] in self?.stop(exitCode: 0) }
        }
        try ownFast(NotificationsInterface.busName, on: notifications, session: session, replace: options.replace)
        if let previousOwner, previousOwner.uniqueName != notifications.uniqueName {
            logReplaced(previousOwner, runsBehind: plan.evicted != nil)
        }
        try own(ControlInterface.busName, on: session, replace: options.replace)
        if servesGtk { ownGtkDoor(on: notifications, session: session) }
        for name in downstream.passthrough?.extraNames ?? [] {
            try ownFast(name, on: notifications, session: session, replace: options.replace)
        }
        session.subscribe(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameLost",
                          path: "/org/freedesktop/DBus") { [weak self] signal in
            guard let self, let name = signal.parameters.child(0).string else { return }
            self.lost(name)
        }
        try notifications.onNameLost { [weak self] name in self?.lost(name) }
        session.onClose { [weak self] in
            self?.logger.error("the session bus closed the connection; exiting")
            self?.stop(exitCode: 1)
        }
        notifications.onClose { [weak self] in
            self?.logger.error("the session bus closed the connection; exiting")
            self?.stop(exitCode: 1)
        }
        MainLoop.onSignal(SIGHUP) { [weak self] in _ = self?.reload() }
        configWatch = ConfigWatch(path: options.configPath) { [weak self] in self?.configFileChanged() }
        // One connection to the system bus (logind), for the lock and for waking from sleep.
        systemBus = try? VariantConnection.system()
        screenLock = ScreenLock.follow(on: session, system: systemBus) { [weak bridge, weak focus] locked in
            bridge?.screenLocked = locked
            focus?.screenLockChanged(locked)
        }
        daemon?.changed = { [weak control] in control?.announce() }
        downstream.start()
        if let privateBus {
            sessionRelays = SessionRelay.start(names: settings.sessionNames, privateAddress: privateBus.address,
                                               session: notifications, logger: logger)
        }
        daemon?.start()
        focus.start()
        review.start()
        let windows = WindowWatch(logger: logger)
        self.windows = windows
        control.windows = { [weak windows] in windows?.report }
        windows.changed = { [weak bridge, weak focus, weak control] state in
            bridge?.windows = state
            // Seen by focusing the app: its notifications are read.
            for name in state.focused?.names ?? [] { bridge?.badges.appFocused(name) }
            focus?.windowsChanged(state)
            control?.announce()
        }
        windows.start(environment: Environment.all)
        share.configure(options.configuration.share)
        tray.start()
        bridge.preferences.start()
        bridge.askPendingQuestions()
        SleepWatch.follow(on: systemBus) { [weak focus, weak review] in
            focus?.evaluate()
            review?.evaluate()
        }
        logger.info("serving org.freedesktop.Notifications as \(notifications.uniqueName)")
    }

    // MARK: The state folder

    /// The state folder cannot be used: why, and whether that stops the bridge (another
    /// focus-bridge has it) or it runs with its state in memory.
    private struct StateUnusable: Error {
        let reason: String
        let stops: Bool
    }

    /// Claims the state folder and opens its database.
    private func openStateOnDisk() throws(StateUnusable) -> (StateFolder, Store) {
        let folder: StateFolder
        do { folder = try StateFolder(path: options.stateDirectory) } catch {
            throw StateUnusable(reason: error.description, stops: error.isTaken)
        }
        do {
            return (folder, try Store(directory: folder.path, notice: { [logger] in logger.warning("\($0)") }))
        } catch let error as StoreError {
            throw StateUnusable(reason: error.description, stops: error.isLocked) // one sentence naming the file
        } catch {
            throw StateUnusable(reason: "\(error)", stops: false)
        }
    }

    /// The store on disk; or, when the state folder cannot be used (read-only, full, not a
    /// folder), in memory: the bridge must own the names and deliver all the same, and a unit
    /// restarting on failure would only fail again. Another focus-bridge on the folder stops it.
    private func openStore() throws -> Store {
        let reason: String
        do {
            let (folder, store) = try openStateOnDisk()
            stateFolder = folder
            return store
        } catch {
            if error.stops { throw StartupError(error.reason) }
            reason = error.reason
        }
        let store: Store
        do {
            store = try Store(inMemory: reason, directory: options.stateDirectory,
                              idHighWater: Self.idHighWaterWithoutState(now: time(nil)))
        } catch {
            throw StartupError("\(reason); nor can state be kept in memory: \(error)")
        }
        let line = "\(reason); focus-bridge runs without it, with history and held notifications in memory only "
            + "(lost if it stops) until it can write there, tried every \(Self.stateRetryInterval)"
        logger.error("\(line)")
        scheduleStateRetry()
        return store
    }

    /// How often a state folder that could not be used is tried again.
    static let stateRetryMilliseconds: UInt32 = Environment.variable("FOCUS_BRIDGE_STATE_RETRY_MS")
        .flatMap { UInt32($0) }.map { max($0, 10) } ?? 30_000

    /// `30 s`, or `200 ms` (tests).
    static var stateRetryInterval: String {
        stateRetryMilliseconds % 1000 == 0 ? "\(stateRetryMilliseconds / 1000) s" : "\(stateRetryMilliseconds) ms"
    }

    private func scheduleStateRetry() {
        stateRetryTimer = MainLoop.after(milliseconds: Self.stateRetryMilliseconds) { [weak self] in
            guard let self, let store = self.store else { return }
            self.stateRetryTimer = .none
            do {
                let (folder, disk) = try self.openStateOnDisk()
                let kept = try store.countsByDecision().values.reduce(0, +)
                try store.move(to: disk)
                self.stateFolder = folder
                self.logger.info("the state folder \(folder.path) can be used again: \(Count.of(kept, "history row")) kept in memory meanwhile written there")
                self.control?.announce()
            } catch {
                self.logger.debug("the state folder \(self.options.stateDirectory) still cannot be used: \(error)")
                self.scheduleStateRetry()
            }
        }
    }

    /// A folder of the bridge's own (0700, made by mkdtemp) for the private bus's config while
    /// the state folder cannot be used: in XDG_RUNTIME_DIR, else /tmp.
    static func privateFolderOutsideState() -> String? {
        let base = Environment.variable("XDG_RUNTIME_DIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/focus-bridge-XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
    }

    /// Where IDs start without a state folder. No file says which IDs a run before gave out, so
    /// they start past what a stored counter reaches in practice (2^31, two billion
    /// notifications) and past every run before without its state: 4 IDs per second since
    /// 2025-01-01 (focus-bridge(1), NOTIFICATION IDS).
    static func idHighWaterWithoutState(now: time_t) -> UInt32 {
        let seconds = UInt64(max(0, Int64(now) - 1_735_689_600))
        return UInt32(min(UInt64(1) << 31 + 4 * seconds, UInt64(UInt32.max) - (UInt64(1) << 24)))
    }

    /// Loads the configuration file again. A file that fails to load is refused: the running
    /// configuration stays, and the error is logged and returned.
    ///
    /// A file that went away while the bridge runs is not a wish for the defaults (editors and
    /// dotfile tools delete and write anew; a Focus must not end in between): the running
    /// configuration stays until a file appears. Asked for explicitly (`focusctl reload`,
    /// SIGHUP), a missing file means the defaults, as at start.
    @discardableResult
    func reload(explicit: Bool = true) -> ConfigError? {
        if !FileStatus.exists(options.configPath) {
            guard explicit else {
                logger.warning("\(options.configPath) is gone; the running configuration stays until the file is written again or focusctl reload is asked for")
                return nil
            }
            logger.warning("\(options.configPath) does not exist; reloading means the defaults")
        }
        do {
            var configuration = try Configuration.load(path: options.configPath)
            options.downstreamOverride(&configuration.downstream)
            bridge?.settings = configuration.policy
            focus?.evaluate()
            review?.evaluate()
            share?.configure(configuration.share)
            tray?.refresh()
            if configuration.downstream != options.configuration.downstream {
                logger.warning("the [downstream] table changed; that takes effect when focus-bridge restarts")
            }
            logger.info("reloaded \(options.configPath)")
            refused(nil)
            return nil
        } catch {
            if error.problems.count == 1 {
                logger.error("the configuration was not reloaded: \(error.description)")
            } else {
                logger.error("the configuration was not reloaded: \(error.problems.count) problems")
                for line in error.lines { logger.error("  \(line)") }
            }
            refused(.init(at: Instant(), problems: error.lines))
            return error
        }
    }

    /// Keeps the refusal of the file (nil: it loaded) for the status, and tells the watchers.
    private func refused(_ refusal: StatusReport.Config.Refusal?) {
        guard refusal != self.refusal else { return }
        self.refusal = refusal
        control?.announce()
    }

    /// Editors write in bursts (truncate, write, rename): reload once it has settled.
    private func configFileChanged() {
        MainLoop.cancel(reloadTimer)
        reloadTimer = MainLoop.after(milliseconds: 200) { [weak self] in
            self?.reloadTimer = .none
            self?.reload(explicit: false)
        }
    }

    /// The one line that names the daemon --replace took the name from, and whether it now
    /// runs behind the bridge.
    private func logReplaced(_ owner: NameOwner, runsBehind: Bool) {
        let taken = "--replace took \(NotificationsInterface.busName) from \(owner.described)"
        if runsBehind, let command = owner.command {
            logger.info("\(taken); running it behind the bridge: \(ProcessCommandLine.shellLine(command))")
        } else {
            logger.info("\(taken)")
        }
    }

    private func makeDownstream(_ plan: DownstreamPlan) throws -> Downstream {
        let passthroughNames = plan.passthroughNames
        switch plan.target {
        case .log:
            return LogDownstream()
        case .name(let name):
            return BusDownstream(mode: .name, target: name, connection: try VariantConnection.session(),
                                 calls: try MessageConnection.session(), daemonName: name, passthroughNames: nil, logger: logger)
        case .address(let address, let name):
            // A bus that is not there yet (started after the bridge, or restarting) is what the
            // bridge meets when it goes away at run time: it serves, and connects when it can.
            var connection: VariantConnection
            var calls: MessageConnection
            var absence: DBusError?
            do {
                connection = try VariantConnection.unconnected()
                calls = try MessageConnection.unconnected()
                do {
                    connection = try VariantConnection.connect(address: address)
                    calls = try MessageConnection.connect(address: address)
                } catch {
                    absence = error
                    connection = try VariantConnection.unconnected()
                }
            } catch {
                throw StartupError("cannot connect to the daemon's bus at \(address): \(error.message)")
            }
            let downstream = BusDownstream(mode: .address, target: name, connection: connection, calls: calls,
                                           daemonName: name, passthroughNames: passthroughNames, logger: logger)
            if let absence {
                logger.warning("the daemon's bus at \(address) is not there (\(absence.message)); notifications wait, connecting when it is")
                downstream.problem = Self.busAbsent(address)
                reconnect(downstream, address: address, afterMilliseconds: Self.firstReconnectMilliseconds)
            } else {
                watchDownstreamBus(downstream, address: address)
            }
            return downstream
        case .spawn(let command):
            let bus: PrivateBus
            let directory = stateFolder?.path ?? Self.privateFolderOutsideState() ?? options.stateDirectory
            do { bus = try PrivateBus(directory: directory, logger: logger) } catch {
                let reason = (error as? DBusError)?.message ?? "\(error)"
                throw StartupError("cannot start the private bus for the daemon in \(directory): \(reason)")
            }
            privateBus = bus
            bus.onExit { [weak self] how in
                // Stopping stops the bus too: that exit is expected, not an error.
                guard let self, !self.stopping else { return }
                self.logger.error("the private bus \(how); exiting")
                self.stop(exitCode: 1)
            }
            let connection = try VariantConnection.connect(address: bus.address)
            let daemon = SpawnedDaemon(command: command, fallbacks: plan.fallbacks, busAddress: bus.address, logger: logger)
            daemon.watch(connection, name: NotificationsInterface.busName)
            self.daemon = daemon
            let daemonBus = BusDownstream(mode: .spawn, target: command.joined(separator: " "), connection: connection,
                                          calls: try MessageConnection.connect(address: bus.address),
                                          daemonName: NotificationsInterface.busName, passthroughNames: passthroughNames,
                                          logger: logger)
            let downstream = FallbackDownstream(daemonBus: daemonBus, daemon: daemon)
            daemon.gaveUp = { [weak downstream] in downstream?.fallBack() }
            return downstream
        }
    }

    /// In `address` mode the daemon's bus may go away (and come back at the same address), or not
    /// be there yet at start: the bridge keeps serving, notifications wait as for an absent
    /// daemon, and it connects (again) with back-off (0.1 s, doubling, at most 10 s apart).
    private func watchDownstreamBus(_ downstream: BusDownstream, address: String) {
        downstream.connection.onClose { [weak self, weak downstream] in
            guard let self, let downstream, !self.stopping else { return }
            self.logger.warning("the daemon's bus at \(address) closed the connection; notifications wait, connecting again")
            downstream.problem = Self.busAbsent(address)
            downstream.connectionLost()
            self.reconnect(downstream, address: address, afterMilliseconds: Self.firstReconnectMilliseconds)
        }
    }

    /// What `focusctl status` says while the daemon's bus is away.
    static func busAbsent(_ address: String) -> String {
        "the daemon's bus at \(address) is not there; notifications wait, and the bridge connects "
            + "(trying at most \(lastReconnectMilliseconds / 1000) s apart) once a bus listens there"
    }

    static let firstReconnectMilliseconds: UInt32 = 100
    static let lastReconnectMilliseconds: UInt32 = 10_000
    private var reconnectTimer = SourceID.none

    private func reconnect(_ downstream: BusDownstream, address: String, afterMilliseconds delay: UInt32) {
        reconnectTimer = MainLoop.after(milliseconds: delay) { [weak self, weak downstream] in
            guard let self, let downstream else { return }
            self.reconnectTimer = .none
            do {
                let calls = try MessageConnection.connect(address: address)
                try downstream.connection.reconnect(address: address)
                downstream.reconnected(calls: calls)
            } catch {
                let next = min(delay * 2, Self.lastReconnectMilliseconds)
                self.logger.debug("the daemon's bus at \(address) is not back (\(error)); next try in \(next) ms")
                return self.reconnect(downstream, address: address, afterMilliseconds: next)
            }
            self.logger.info("connected to the daemon's bus at \(address)")
            downstream.problem = nil
            self.watchDownstreamBus(downstream, address: address)
            downstream.start()
        }
    }

    /// Takes a bus name, or explains who has it and how to put that daemon behind the bridge.
    private func own(_ name: String, on session: VariantConnection, replace: Bool) throws {
        let result: VariantConnection.NameRequestResult
        do { result = try session.requestName(name, replaceExisting: replace) } catch {
            throw StartupError("cannot ask for the name \(name): \(error.message)")
        }
        try owned(name, result, session: session, replace: replace)
        ownedNames.append(name)
    }

    /// The same on the sd-bus connection (the names of the hot path and the passthrough).
    private func ownFast(_ name: String, on connection: MessageConnection, session: VariantConnection, replace: Bool) throws {
        let result: VariantConnection.NameRequestResult
        do { result = try connection.requestName(name, replaceExisting: replace) } catch {
            throw StartupError("cannot ask for the name \(name): \(error.message)")
        }
        try owned(name, result, session: session, replace: replace)
        ownedFastNames.append(name)
    }

    private func owned(_ name: String, _ result: VariantConnection.NameRequestResult, session: VariantConnection, replace: Bool) throws {
        switch result {
        case .primaryOwner, .alreadyOwner: return
        case .exists, .inQueue: throw StartupError(Self.conflictMessage(name: name, session: session, replace: replace))
        }
    }

    /// Asks for `org.gtk.Notifications`. GNOME Shell asks for it without letting it be taken, so
    /// the bridge has it only when it asks first; otherwise it waits in the queue (and has it
    /// when the shell lets go), and says so: GNotification apps reach the shell directly until then.
    private func ownGtkDoor(on connection: MessageConnection, session: VariantConnection) {
        let name = GtkNotificationsInterface.busName
        do {
            switch try connection.requestName(name, replaceExisting: options.replace, doNotQueue: false) {
            case .primaryOwner, .alreadyOwner:
                ownedFastNames.append(name)
                logger.info("serving \(name) (GNOME's GTK door) as \(connection.uniqueName)")
            case .inQueue, .exists:
                queuedFastNames.append(name)
                let owner = NameOwner.lookup(name, nameOwner: session.nameOwner, processID: { session.processID(of: $0) })
                let who = "\(owner?.executable ?? "another program") (PID \(owner?.processID.map(String.init) ?? "unknown"))"
                logger.warning("\(name) is served by \(who), which does not give it up: GNotification and Flatpak apps reach it directly, not through the bridge, until it lets go; start focus-bridge before GNOME Shell (focus-bridge(1), GNOME)")
            }
        } catch {
            logger.warning("cannot ask for the name \(name): \(error.message); GNotification apps reach GNOME Shell directly")
        }
    }

    /// NameLost, on either connection: another process took one of the names.
    private func lost(_ name: String) {
        guard ownedNames.contains(name) || ownedFastNames.contains(name) else { return }
        logger.error("lost the bus name \(name) to another process; exiting")
        ownedNames.removeAll { $0 == name }
        ownedFastNames.removeAll { $0 == name }
        stop(exitCode: 1)
    }

    static func conflictMessage(name: String, session: VariantConnection, replace: Bool) -> String {
        let owner = NameOwner.lookup(name, nameOwner: session.nameOwner, processID: { session.processID(of: $0) })
            ?? NameOwner(uniqueName: "another connection")
        if name == NotificationsInterface.busName {
            return owner.conflictSentence(replace: replace)
        }
        let who = "\(owner.executable ?? "an unknown program") (PID \(owner.processID.map(String.init) ?? "unknown"), \(owner.uniqueName))"
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
        if let notifications, !notifications.isClosed {
            for name in ownedFastNames + queuedFastNames { notifications.releaseName(name, timeoutMilliseconds: 1_000) }
        }
        ownedFastNames.removeAll()
        queuedFastNames.removeAll()
        MainLoop.cancel(reconnectTimer)
        reconnectTimer = .none
        MainLoop.cancel(stateRetryTimer)
        stateRetryTimer = .none
        stopDownstream()
        MainLoop.quit()
    }

    private func stopDownstream() {
        stopping = true
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
