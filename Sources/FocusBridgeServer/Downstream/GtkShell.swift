import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import Logging

/// GNOME Shell's `org.gtk.Notifications`, as the bridge calls it once it serves that name itself:
/// the shell still serves the interface at `/org/gtk/Notifications` on its main connection
/// (`org.gnome.Shell`). What may be shown is added there and a removal passed on; while the shell
/// is away or not serving yet, what waits is kept in order (bounded) and added when it serves.
final class GtkShell {
    static let busName = DesktopShell.gnome.busName
    /// At most this many notifications wait for the shell; past it the oldest is given up.
    static let maxWaiting = 1_000
    static let callTimeoutMilliseconds: Int32 = 25_000

    private let calls: MessageConnection
    private let logger: Logger
    private var owner: String?
    /// Added while the shell was away, oldest first.
    private var waiting: [GtkForward] = []
    private var retryTimer = SourceID.none
    private var retryDelay: UInt32 = 100
    /// The shell refused notification `id` (an app it cannot find), or it was given up: it ended.
    var givenUp: (UInt32) -> Void = { _ in }

    init(calls: MessageConnection, logger: Logger) {
        self.calls = calls
        self.logger = logger
    }

    /// Whether the shell is there to take notifications now.
    var isConnected: Bool { owner != nil }
    var waitingCount: Int { waiting.count }

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
        if newOwner != nil { flush() }
    }

    func add(_ forward: GtkForward) {
        // A newer one for the same app and ID replaces one that never went out.
        waiting.removeAll { $0.appID == forward.appID && $0.notificationID == forward.notificationID }
        guard owner != nil, waiting.isEmpty else { return wait(forward) }
        send(forward)
    }

    func remove(appID: String, id: String) {
        waiting.removeAll { $0.appID == appID && $0.notificationID == id }
        guard owner != nil else { return }
        do {
            let message = try calls.methodCall(Self.busName, GtkNotificationsInterface.path, GtkNotificationsInterface.name, "RemoveNotification")
            try message.append(appID)
            try message.append(id)
            calls.call(message, timeoutMilliseconds: Self.callTimeoutMilliseconds) { [logger] result in
                if case .failure(let error) = result { logger.debug("RemoveNotification to the shell: \(error)") }
            }
        } catch {
            logger.debug("RemoveNotification to the shell: \(error)")
        }
    }

    private func wait(_ forward: GtkForward) {
        waiting.append(forward)
        if waiting.count > Self.maxWaiting {
            let oldest = waiting.removeFirst()
            logger.warning("more than \(Self.maxWaiting) GTK notifications wait for GNOME Shell; notification \(oldest.id) given up")
            givenUp(oldest.id)
        }
    }

    private func flush() {
        let pending = waiting
        waiting = []
        for forward in pending { send(forward) }
    }

    private func send(_ forward: GtkForward) {
        let message: BusMessage
        do {
            message = try calls.methodCall(Self.busName, GtkNotificationsInterface.path, GtkNotificationsInterface.name, "AddNotification")
            try message.append(forward.appID)
            try message.append(forward.notificationID)
            try message.append(forward.dictionary)
        } catch {
            logger.warning("notification \(forward.id) cannot be put on the GTK wire: \(error)")
            return givenUp(forward.id)
        }
        calls.call(message, timeoutMilliseconds: Self.callTimeoutMilliseconds) { [weak self] result in
            guard let self, case .failure(let error) = result else { return }
            if error.meansDaemonAbsent || BusDownstream.meansNotServingYet(error) {
                // Added again once the shell serves (its name back, or after a short wait).
                self.wait(forward)
                self.retryLater()
            } else {
                self.logger.warning("GNOME Shell did not take notification \(forward.id) of \(forward.appID.escapingControlCharacters): \(error)")
                self.givenUp(forward.id)
            }
        }
    }

    private func retryLater() {
        guard retryTimer == .none else { return }
        let delay = retryDelay
        retryDelay = min(retryDelay * 2, 5_000)
        retryTimer = MainLoop.after(milliseconds: delay) { [weak self] in
            guard let self else { return }
            self.retryTimer = .none
            if self.owner != nil { self.flush() }
        }
    }
}
