import FocusBridgeDBus
import Glibc

/// Keeps the daemon's own tools working through the bridge: calls on the bridge's bus name to
/// interfaces that are not the bridge's (dunstctl's `org.dunstproject.cmd0`, makoctl's
/// `fr.emersion.Mako`, their Properties) go to the daemon and its answer comes back; calls to the
/// extra `passthrough-names` go there whole; the daemon's other signals are re-broadcast.
///
/// Both sides are sd-bus connections: the one that owns the names (so relayed signals come
/// from their owner, as clients matching on the name expect) and the one to the daemon; the
/// bodies are copied message to message, never decoded.
final class Passthrough {
    /// Interfaces the bridge answers itself on `org.freedesktop.Notifications`.
    static let ownInterfaces: Set<String> = [
        NotificationsInterface.name, ControlInterface.name,
        "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer",
    ]

    /// The connection to the daemon's bus (replaced when it is connected again).
    var downstream: MessageConnection
    private let daemonName: String
    let extraNames: [String]
    private var upstream: MessageConnection?
    private var senders: SenderDirectory?
    /// Calls passed through and not yet answered; past `maxInFlight` more are refused at once, so
    /// a stopped daemon cannot make the bridge keep an unbounded pile of them.
    private var inFlight = 0
    /// Called after each passed-through call is answered (the daemon's state may have changed).
    var answered: () -> Void = {}
    static let maxInFlight = 64

    init(downstream: MessageConnection, daemonName: String, extraNames: [String]) {
        self.downstream = downstream
        self.daemonName = daemonName
        self.extraNames = extraNames
    }

    /// Starts taking the matching calls that reach `upstream`; `senders` tells who calls.
    func install(on upstream: MessageConnection, senders: SenderDirectory) throws(DBusError) {
        self.upstream = upstream
        self.senders = senders
        let extra = Set(extraNames)
        try upstream.filter { [weak self] message in
            guard let self, message.kind == .methodCall, Passthrough.shouldPass(message, extraNames: extra) else { return false }
            self.pass(IncomingCall(message))
            return true
        }
    }

    /// Decides from the message alone (its header, and for Properties the interface asked about).
    /// The header fields are compared in place (every incoming message comes here): a String
    /// is made only for a destination looked up among `extraNames`.
    static func shouldPass(_ message: BusMessage, extraNames: Set<String>) -> Bool {
        if !extraNames.isEmpty, let destination = message.destination, extraNames.contains(destination) {
            return !message.hasInterface("org.freedesktop.DBus.Peer")
        }
        guard message.hasDestination(NotificationsInterface.busName), message.hasInterfaceField else { return false }
        if message.hasInterface("org.freedesktop.DBus.Properties") {
            defer { try? message.rewind() }
            guard message.signature.hasPrefix("s"), let about = try? message.readString() else { return false }
            return !ownInterfaces.contains(about)
        }
        return !ownInterfaceList.contains { message.hasInterface($0) }
    }

    /// `ownInterfaces`, for comparing in place.
    private static let ownInterfaceList = Array(ownInterfaces)

    private func pass(_ call: IncomingCall) {
        guard let senders else { return }
        // The daemon's tools read its history and pause it: for the bridge's own user only, as
        // the control interface (the bus may admit other users).
        senders.withSender(call.sender) { [weak self] caller in
            guard caller.userID == getuid() else {
                return call.fail(DBusError(name: "org.freedesktop.DBus.Error.AccessDenied",
                                           message: "focus-bridge passes the daemon's own interfaces to its own user only"))
            }
            self?.forward(call)
        }
    }

    private func forward(_ call: IncomingCall) {
        guard inFlight < Self.maxInFlight else {
            return call.fail(DBusError(
                name: "org.freedesktop.DBus.Error.LimitsExceeded",
                message: "the notification daemon has \(Self.maxInFlight) calls of its tools unanswered; try again later"))
        }
        let message = call.message
        let destination = message.destination == NotificationsInterface.busName ? daemonName : message.destination!
        let forwarded: BusMessage
        do {
            forwarded = try downstream.methodCall(destination, message.path ?? "/", message.interface, message.member ?? "")
            try message.rewind()
            try forwarded.appendRest(copying: message)
        } catch {
            return call.fail(error)
        }
        inFlight += 1
        downstream.call(forwarded, timeoutMilliseconds: BusDownstream.callTimeoutMilliseconds) { [weak self] result in
            self?.inFlight -= 1
            self?.answered()
            switch result {
            case .success(let reply): call.answer(copying: reply)
            case .failure(let error): call.fail(error)
            }
        }
    }

    /// Re-broadcasts a signal the daemon sent on one of its own interfaces.
    func relay(_ signal: BusMessage) {
        guard let upstream, let path = signal.path, let interface = signal.interface, let member = signal.member else { return }
        do {
            let copy = try upstream.signal(path, interface, member)
            try signal.rewind()
            try copy.appendRest(copying: signal)
            try upstream.send(copy)
        } catch {
            // A signal that cannot be copied (it carried file descriptors sd-bus refused): dropped.
        }
    }
}
