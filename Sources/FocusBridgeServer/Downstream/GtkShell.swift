import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import Logging

/// GNOME Shell's `org.gtk.Notifications`, as the bridge calls it once it serves that name itself:
/// the shell still serves the interface at `/org/gtk/Notifications` on its main connection
/// (`org.gnome.Shell`). A `Forwarder`'s target, as the daemon is: the forwarder keeps what waits
/// while the shell is away (in order, bounded by count and bytes) and sends it when the shell
/// serves; here it is put on the shell's wire.
final class GtkShell: ForwardTarget {
    static let busName = DesktopShell.gnome.busName
    static let callTimeoutMilliseconds: Int32 = 25_000

    static var described: String { "GNOME Shell" }
    /// The shell is away only between a login's start and its shell, or while the shell
    /// restarts: what waits for it is bounded tighter than what waits for the daemon.
    static var maxQueued: Int { 1_000 }
    static var maxQueuedBytes: Int { 32 << 20 }

    private let calls: MessageConnection
    private let logger: Logger
    private var owner: String?
    /// False from a call that found nothing serving until the next try: the shell owns its name
    /// before it serves the interface, and a call that finds it gone comes before the name does.
    private var serving = true
    private var retryTimer = SourceID.none
    private var retryDelay: UInt32 = 100
    /// The shell serves (again): what waits for it may go.
    var ready: () -> Void = {}
    /// The app ID and notification ID the app gave a bridge ID, for `RemoveNotification`.
    var names: (UInt32) -> (appID: String, id: String)? = { _ in nil }

    init(calls: MessageConnection, logger: Logger) {
        self.calls = calls
        self.logger = logger
    }

    /// Whether the shell is there to take notifications now.
    var isConnected: Bool { owner != nil && serving }
    var logsOnly: Bool { false }

    func start() {
        do {
            try calls.watchName(Self.busName) { [weak self] owner in self?.ownerChanged(to: owner) }
        } catch {
            logger.error("cannot watch \(Self.busName): \(error)")
        }
    }

    private func ownerChanged(to newOwner: String?) {
        guard newOwner != owner else { return }
        owner = newOwner
        retryDelay = 100
        serving = true
        if newOwner != nil { ready() }
    }

    /// `AddNotification`. The shell names a notification by its app and the app's ID, so the
    /// bridge ID stands for the shell's copy, and a replacement is the same call again.
    func notify(_ payload: GtkForward, replacing shownID: UInt32,
                completion: @escaping (Result<UInt32, DBusError>) -> Void) {
        GtkNotificationsInterface.add(payload, on: calls, destination: Self.busName,
                                      timeoutMilliseconds: Self.callTimeoutMilliseconds) { [weak self] result in
            switch result {
            case .success:
                completion(.success(payload.id))
            case .failure(let error) where error.meansDaemonAbsent || BusDownstream.meansNotServingYet(error):
                // Away, or not serving yet: no call goes until the name comes back or a short
                // wait is over, and the forwarder keeps this one for then.
                self?.notServing()
                completion(.failure(DBusError(name: DBusError.serviceUnknown, message: error.message, isRemote: error.isRemote)))
            case .failure(let error):
                completion(.failure(error)) // refused (an app it cannot find): the forwarder gives it up
            }
        }
    }

    /// A close by bridge ID: `RemoveNotification` by the names the app gave it. The shell says
    /// nothing when its copy goes, so the ID ends here.
    func close(shownID: UInt32, bridgeID: UInt32) -> Bool {
        if let names = names(bridgeID) { remove(appID: names.appID, id: names.id) }
        return true
    }

    /// `RemoveNotification` of the app's notification `id`; nothing is sent while the shell is
    /// away.
    func remove(appID: String, id: String) {
        guard owner != nil else { return }
        GtkNotificationsInterface.remove(appID: appID, id: id, on: calls, destination: Self.busName,
                                         timeoutMilliseconds: Self.callTimeoutMilliseconds) { [logger] error in
            if let error { logger.debug("RemoveNotification to the shell: \(error)") }
        }
    }

    private func notServing() {
        serving = false
        guard retryTimer == .none else { return }
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, 5_000)
        retryTimer = MainLoop.after(milliseconds: delay) { [weak self] in
            guard let self else { return }
            retryTimer = .none
            serving = true
            if owner != nil { ready() }
        }
    }
}
