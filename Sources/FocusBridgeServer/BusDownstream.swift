import FocusBridgeCore
import FocusBridgeDBus
import Logging

/// A notification daemon reached over D-Bus: on a private bus (spawn), another bus (address) or
/// under another name on the session bus (name).
final class BusDownstream: Downstream {
    let mode: String
    let target: String
    let connection: BusConnection
    let daemonName: String
    private(set) var capabilities: [String]?
    weak var events: DownstreamEvents?
    private(set) var passthrough: Passthrough?
    private let logger: Logger
    /// The daemon's unique name while it is there; its signals are recognised by it.
    private var owner: String?
    private var isReady = false

    /// How long a call to the daemon may take before the bridge stops waiting for it.
    static let callTimeoutMilliseconds: Int32 = 60_000

    init(mode: String, target: String, connection: BusConnection, daemonName: String,
         passthroughNames: [String]?, logger: Logger) {
        self.mode = mode
        self.target = target
        self.connection = connection
        self.daemonName = daemonName
        self.logger = logger
        if let passthroughNames {
            passthrough = Passthrough(downstream: connection, daemonName: daemonName, extraNames: passthroughNames)
        }
    }

    var isConnected: Bool { isReady && owner != nil }

    func start() {
        connection.subscribe { [weak self] signal in self?.received(signal) }
        connection.watchName(daemonName) { [weak self] owner in self?.ownerChanged(to: owner) }
    }

    private func ownerChanged(to newOwner: String?) {
        guard newOwner != owner else { return }
        let wasReady = isReady
        owner = newOwner
        isReady = false
        if wasReady { events?.downstreamGone() }
        guard let newOwner else {
            // One that never answered (a spawned daemon that cannot start) is the spawner's to report.
            if wasReady { logger.info("the daemon \(daemonName) is not on its bus; notifications wait for it") }
            return
        }
        connection.call(daemonName, NotificationsInterface.path, NotificationsInterface.name, "GetCapabilities",
                        replyType: "(as)", timeoutMilliseconds: 5_000) { [weak self] result in
            guard let self, self.owner == newOwner else { return }
            switch result {
            case .success(let reply): self.capabilities = reply.child(0).strings
            case .failure(let error): self.logger.warning("GetCapabilities failed: \(error)")
            }
            self.isReady = true
            self.logger.info("connected to the daemon \(self.daemonName) (\(newOwner)); capabilities: \((self.capabilities ?? []).joined(separator: " "))")
            self.events?.downstreamReady()
        }
    }

    private func received(_ signal: Signal) {
        guard let owner, signal.sender == owner else { return }
        if signal.interface == NotificationsInterface.name {
            events?.downstreamSignal(signal)
        } else {
            passthrough?.relay(signal)
        }
    }

    func notify(_ notification: ForwardedNotification, replacing daemonID: UInt32,
                completion: @escaping (Result<UInt32, DBusError>) -> Void) {
        connection.call(daemonName, NotificationsInterface.path, NotificationsInterface.name, "Notify",
                        notification.arguments(replacing: daemonID), replyType: "(u)",
                        timeoutMilliseconds: Self.callTimeoutMilliseconds) { result in
            completion(result.map { $0.child(0).uint32 ?? 0 })
        }
    }

    func close(daemonID: UInt32, bridgeID: UInt32) {
        connection.call(daemonName, NotificationsInterface.path, NotificationsInterface.name, "CloseNotification",
                        .tuple([.uint32(daemonID)]), timeoutMilliseconds: Self.callTimeoutMilliseconds) { [logger] result in
            if case .failure(let error) = result { logger.debug("CloseNotification(\(daemonID)): \(error)") }
        }
    }

    func stop() {}
}
