import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus

/// Where the bridge delivers: a notification daemon on some bus, or the log.
protocol Downstream: AnyObject {
    /// `spawn`, `name`, `address` or `log`.
    var mode: DownstreamSettings.Mode { get }
    /// The daemon's bus name or command, for `focusctl status`.
    var target: String { get }
    /// Whether the daemon is there to take calls now.
    var isConnected: Bool { get }
    /// The daemon's capabilities, once known.
    var capabilities: [String]? { get }
    /// The daemon's `GetServerInformation`, once known (nil: the bridge answers for itself).
    var serverInformation: ServerInformation? { get }
    var events: DownstreamEvents? { get set }

    func start()
    /// Sends a notification; `completion` gets the daemon's ID.
    func notify(_ notification: ForwardedNotification, replacing daemonID: UInt32,
                completion: @escaping (Result<UInt32, DBusError>) -> Void)
    func close(daemonID: UInt32, bridgeID: UInt32)
    /// Passes a call on another interface through to the daemon (nil: not supported here).
    var passthrough: Passthrough? { get }
    /// Why the daemon is not there ("cannot start dunst: …"), for `focusctl status`; nil when
    /// nothing is wrong that the bridge knows of.
    var problem: String? { get }
    /// The daemon's own Do Not Disturb, where it has one the bridge can read (nil: unknown).
    var daemonQuiet: DaemonQuiet? { get }
    /// Every daemon command given up on, first first (spawn mode).
    var failures: [DaemonStartFailure] { get }
    /// Why no daemon can likely start (no display), while none serves.
    var likelyCause: String? { get }
    /// Passes an app's request for quiet on to a daemon that shows it itself (plasmashell);
    /// `completion` gets the daemon's cookie, nil where it is not passed on.
    func inhibit(desktopEntry: String, reason: String, completion: @escaping (UInt32?) -> Void)
    func uninhibit(daemonCookie: UInt32)
    func stop()
}

extension Downstream {
    var problem: String? { nil }
    var failures: [DaemonStartFailure] { [] }
    var likelyCause: String? { nil }
    var daemonQuiet: DaemonQuiet? { nil }
    func inhibit(desktopEntry: String, reason: String, completion: @escaping (UInt32?) -> Void) { completion(nil) }
    func uninhibit(daemonCookie: UInt32) {}
}

/// What a downstream reports back to the bridge.
protocol DownstreamEvents: AnyObject {
    /// The daemon appeared (or came back): capabilities are fresh, queued work can go.
    func downstreamReady()
    /// The daemon went away: what it showed is gone.
    func downstreamGone()
    /// A signal of `org.freedesktop.Notifications` from the daemon, read (`DaemonSignal`).
    func downstreamSignal(_ signal: DaemonSignal)
    /// Something `focusctl status` shows about the daemon changed (its Do Not Disturb).
    func downstreamChanged()
}

extension DBusError {
    /// The error says the daemon is not there (as opposed to refusing the call): also the bus's
    /// NoReply for a call the daemon took with it when it died.
    var meansDaemonAbsent: Bool {
        [DBusError.serviceUnknown, DBusError.nameHasNoOwner, DBusError.disconnected].contains(name)
            || (name == DBusError.noReply && isRemote)
    }
}
