import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import FocusBridgeSystem
import Logging

/// A notification daemon reached over D-Bus: on a private bus (spawn), another bus (address) or
/// under another name on the session bus (name).
final class BusDownstream: Downstream {
    let mode: DownstreamSettings.Mode
    let target: String
    /// The daemon's bus for the cold calls (`VariantConnection`, `Variant` bodies): its Do Not
    /// Disturb, the spawned daemon's name.
    let connection: VariantConnection
    /// The daemon's bus over sd-bus: Notify and the other calls of the interface, the daemon's
    /// signals (dunst sends them only to the connection that called), the passthrough.
    private(set) var calls: MessageConnection
    let daemonName: String
    private(set) var capabilities: [String]?
    private(set) var serverInformation: ServerInformation?
    private(set) var daemonQuiet: DaemonQuiet?
    weak var events: DownstreamEvents?
    /// Why the daemon cannot be reached (its bus is away, in address mode); nil otherwise.
    var problem: String?
    private(set) var passthrough: Passthrough?
    private let logger: Logger
    /// The daemon's unique name while it is there; its signals are recognised by it.
    private var owner: String?
    private var isReady = false

    /// How long a call to the daemon other than `Notify` may take before the bridge stops waiting
    /// for it; `FOCUS_BRIDGE_CALL_TIMEOUT_MS` shortens it for tests.
    static let callTimeoutMilliseconds: Int32 = Environment.variable("FOCUS_BRIDGE_CALL_TIMEOUT_MS")
        .flatMap { Int32($0) }.map { max($0, 1) } ?? 60_000
    /// A forwarded `Notify` waits as long as the daemon lives (`Int32.max`: no time-out): given
    /// up earlier, its answer would be lost and with it the ID mapping that closes and actions
    /// need. The bus answers it with an error when the daemon goes away; the in-flight bound (8)
    /// and the queue's bound keep a stalled daemon from costing memory.
    static let notifyTimeoutMilliseconds = Int32.max

    init(mode: DownstreamSettings.Mode, target: String, connection: VariantConnection, calls: MessageConnection, daemonName: String,
         passthroughNames: [String]?, logger: Logger) {
        self.mode = mode
        self.target = target
        self.connection = connection
        self.calls = calls
        self.daemonName = daemonName
        self.logger = logger
        if let passthroughNames {
            passthrough = Passthrough(downstream: calls, daemonName: daemonName, extraNames: passthroughNames)
            // dunstctl, makoctl, swaync-client may have just switched the daemon's own DND.
            passthrough?.answered = { [weak self] in self?.readQuiet() }
        }
    }

    var isConnected: Bool { isReady && owner != nil && !calls.isClosed }

    /// Subscribes to the daemon's signals and watches its name; again after a reconnect.
    func start() {
        // Not connected yet (address mode, the bus not there): `start` follows the reconnect.
        guard !calls.isClosed else { return }
        do {
            try calls.match("type='signal'") { [weak self] signal in self?.received(signal) }
            try calls.watchName(daemonName) { [weak self] owner in self?.ownerChanged(to: owner) }
        } catch {
            logger.error("cannot watch the daemon \(daemonName): \(error)")
        }
    }

    /// The daemon's bus is there again: `calls` is the new connection to it (`start` follows).
    func reconnected(calls: MessageConnection) {
        self.calls = calls
        passthrough?.downstream = calls
    }

    /// The connection to the daemon's bus closed: as far as the bridge can tell, the daemon is gone
    /// (what it showed is reported closed; new notifications wait for it).
    func connectionLost() { ownerChanged(to: nil) }

    private func ownerChanged(to newOwner: String?) {
        guard newOwner != owner else { return }
        let wasReady = isReady
        owner = newOwner
        isReady = false
        daemonQuiet = nil
        if wasReady { events?.downstreamGone() }
        guard let newOwner else {
            // One that never answered (a spawned daemon that cannot start) is the spawner's to report.
            if wasReady { logger.info("the daemon \(daemonName) is not on its bus; notifications wait for it") }
            return
        }
        fetchCapabilities(from: newOwner, attempt: 0)
    }

    /// Asks what the daemon can do. A daemon whose name appears before its object does (GNOME's
    /// and Plasma's shells, started after the bridge) answers "no such object" at first: asked
    /// again with back-off (0.1 s doubling to 5 s) until it serves, and only then given work,
    /// so clients never see a capability list that is not the daemon's.
    private func fetchCapabilities(from newOwner: String, attempt: Int) {
        NotificationsInterface.capabilities(on: calls, name: daemonName, timeoutMilliseconds: 5_000) { [weak self] result in
            guard let self, self.owner == newOwner else { return }
            switch result {
            case .success(let capabilities):
                self.capabilities = capabilities
            case .failure(let error) where Self.meansNotServingYet(error):
                let delay = UInt32(min(5_000, 100 << min(attempt, 6)))
                if attempt == 0 {
                    self.logger.info("the daemon \(self.daemonName) does not serve notifications yet (\(error.message)); asking again")
                }
                _ = MainLoop.after(milliseconds: delay) { [weak self] in
                    guard let self, self.owner == newOwner else { return }
                    self.fetchCapabilities(from: newOwner, attempt: attempt + 1)
                }
                return
            case .failure(let error):
                self.logger.warning("GetCapabilities failed: \(error)")
            }
            self.fetchServerInformation(from: newOwner)
        }
    }

    /// The name is owned, but nothing answers at /org/freedesktop/Notifications yet.
    static func meansNotServingYet(_ error: DBusError) -> Bool {
        ["org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownObject",
         "org.freedesktop.DBus.Error.UnknownInterface"].contains(error.name)
    }

    /// Asks who the daemon is (apps see its answer as the bridge's), then takes work.
    private func fetchServerInformation(from newOwner: String) {
        NotificationsInterface.serverInformation(on: calls, name: daemonName, timeoutMilliseconds: 5_000) { [weak self] result in
            guard let self, self.owner == newOwner else { return }
            switch result {
            case .success(let information):
                self.serverInformation = information
            case .failure(let error):
                self.serverInformation = nil
                self.logger.warning("GetServerInformation failed: \(error)")
            }
            self.isReady = true
            self.logger.info("connected to the daemon \(self.daemonName) (\(newOwner)): \((self.serverInformation?.line ?? "unnamed").escapingControlCharacters); capabilities: \((self.capabilities ?? []).joined(separator: " "))")
            self.events?.downstreamReady()
            self.readQuiet()
        }
    }

    /// Reads the daemon's own Do Not Disturb again, and says so when it changed.
    /// One reading at a time: the signals and calls of a flood ask again at most once more.
    private var quietReading = false
    private var quietAskedAgain = false

    private func readQuiet() {
        // Only where the daemon has a bus of its own (spawn, address): in name mode the probes'
        // names would be asked on the session bus, where one could be started by activation.
        guard let owner, passthrough != nil else { return }
        guard !quietReading else { quietAskedAgain = true; return }
        quietReading = true
        DaemonQuiet.read(on: connection, daemonName: daemonName) { [weak self] quiet in
            guard let self else { return }
            self.quietReading = false
            if self.owner == owner, quiet != self.daemonQuiet {
                self.daemonQuiet = quiet
                if let quiet { self.logger.info("the daemon's own Do Not Disturb: \(quiet.on ? "on" : "off") (\(quiet.how))") }
                self.events?.downstreamChanged()
            }
            if self.quietAskedAgain {
                self.quietAskedAgain = false
                self.readQuiet()
            }
        }
    }

    private func received(_ signal: BusMessage) {
        guard let owner, signal.sender == owner else { return }
        if signal.interface == NotificationsInterface.name {
            if let read = DaemonSignal(signal) { events?.downstreamSignal(read) }
        } else {
            passthrough?.relay(signal)
            readQuiet()   // dunst's PropertiesChanged, swaync's SubscribeV2
        }
    }

    func notify(_ notification: ForwardedNotification, replacing daemonID: UInt32,
                completion: @escaping (Result<UInt32, DBusError>) -> Void) {
        NotificationsInterface.notify(notification, replacing: daemonID, on: calls, name: daemonName,
                                      timeoutMilliseconds: Self.notifyTimeoutMilliseconds, completion: completion)
    }

    func close(daemonID: UInt32, bridgeID: UInt32) {
        NotificationsInterface.closeNotification(daemonID, on: calls, name: daemonName,
                                                 timeoutMilliseconds: Self.callTimeoutMilliseconds) { [logger] error in
            if let error { logger.debug("CloseNotification(\(daemonID)): \(error)") }
        }
    }

    /// Only plasmashell, in name mode: its own applet shows who asked for quiet.
    private var passesInhibitions: Bool { mode == .name && daemonName == DesktopShell.plasma.busName }

    func inhibit(desktopEntry: String, reason: String, completion: @escaping (UInt32?) -> Void) {
        guard passesInhibitions, isConnected else { return completion(nil) }
        do {
            let message = try calls.methodCall(daemonName, NotificationsInterface.path, NotificationsInterface.name, "Inhibit")
            try message.append(desktopEntry)
            try message.append(reason)
            try message.openDictionary()
            try message.close()
            calls.call(message, timeoutMilliseconds: Self.callTimeoutMilliseconds) { [logger, daemonName] result in
                switch result {
                case .success(let reply): completion(try? reply.readUInt32())
                case .failure(let error):
                    logger.debug("Inhibit passed on to \(daemonName): \(error)")
                    completion(nil)
                }
            }
        } catch {
            completion(nil)
        }
    }

    func uninhibit(daemonCookie: UInt32) {
        guard passesInhibitions else { return }
        NotificationsInterface.unInhibit(daemonCookie, on: calls, name: daemonName,
                                         timeoutMilliseconds: Self.callTimeoutMilliseconds)
    }

    func stop() {}
}
