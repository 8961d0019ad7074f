import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus

/// spawn mode's downstream: the daemon on the private bus while a daemon command can start,
/// then the log. Without it, a command that cannot start left the bridge owning the name and
/// accepting everything while nothing was shown and only the log said why.
final class FallbackDownstream: Downstream {
    private let daemonBus: BusDownstream
    private let daemon: SpawnedDaemon
    private let log = LogDownstream()
    private var fellBack = false
    weak var events: DownstreamEvents? {
        didSet { current.events = events }
    }

    init(daemonBus: BusDownstream, daemon: SpawnedDaemon) {
        self.daemonBus = daemonBus
        self.daemon = daemon
    }

    private var current: Downstream { fellBack ? log : daemonBus }
    var mode: DownstreamSettings.Mode { current.mode }
    var target: String { fellBack ? log.target : daemon.command.joined(separator: " ") }
    var isConnected: Bool { current.isConnected }
    var capabilities: [String]? { current.capabilities }
    var serverInformation: ServerInformation? { current.serverInformation }
    var passthrough: Passthrough? { daemonBus.passthrough }
    var problem: String? { daemon.problem }
    var failures: [DaemonStartFailure] { daemon.failures }
    var likelyCause: String? { daemon.likelyCause }
    var daemonQuiet: DaemonQuiet? { fellBack ? nil : daemonBus.daemonQuiet }

    func start() { current.start() }

    /// No daemon command can start: from now on notifications go to the log.
    func fallBack() {
        guard !fellBack else { return }
        daemonBus.events = nil
        fellBack = true
        log.events = events
        log.start()
    }

    func notify(_ notification: ForwardedNotification, replacing daemonID: UInt32,
                completion: @escaping (Result<UInt32, DBusError>) -> Void) {
        current.notify(notification, replacing: daemonID, completion: completion)
    }

    func close(daemonID: UInt32, bridgeID: UInt32) { current.close(daemonID: daemonID, bridgeID: bridgeID) }

    func stop() { current.stop() }
}
