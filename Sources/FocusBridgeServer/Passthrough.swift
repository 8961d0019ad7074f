import FocusBridgeDBus
import Glibc

/// Keeps the daemon's own tools working through the bridge: calls on the bridge's bus name to
/// interfaces that are not the bridge's (dunstctl's `org.dunstproject.cmd0`, makoctl's
/// `fr.emersion.Mako`, their Properties) go to the daemon and its answer comes back; calls to the
/// extra `passthrough-names` go there whole; the daemon's other signals are re-broadcast.
final class Passthrough {
    /// Interfaces the bridge answers itself on `org.freedesktop.Notifications`.
    static let ownInterfaces: Set<String> = [
        NotificationsInterface.name, ControlInterface.name,
        "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer",
    ]

    private let downstream: BusConnection
    private let daemonName: String
    let extraNames: [String]
    private var upstream: BusConnection?
    private var senders: SenderDirectory?
    /// Calls passed through and not yet answered; past `maxInFlight` more are refused at once, so
    /// a stopped daemon cannot make the bridge keep an unbounded pile of them.
    private var inFlight = 0
    /// Called after each passed-through call is answered (the daemon's state may have changed).
    var answered: () -> Void = {}
    static let maxInFlight = 64

    init(downstream: BusConnection, daemonName: String, extraNames: [String]) {
        self.downstream = downstream
        self.daemonName = daemonName
        self.extraNames = extraNames
    }

    /// Starts diverting the matching calls that reach `upstream`; `senders` tells who calls.
    func install(on upstream: BusConnection, senders: SenderDirectory) {
        self.upstream = upstream
        self.senders = senders
        let extra = Set(extraNames)
        upstream.divertIncomingCalls(where: { message in
            Passthrough.shouldPass(message, extraNames: extra)
        }, to: { [weak self] message in self?.pass(message) })
    }

    /// Decides on GDBus's worker thread, from the message alone.
    static func shouldPass(_ message: Message, extraNames: Set<String>) -> Bool {
        guard let destination = message.destination else { return false }
        if extraNames.contains(destination) { return message.interface != "org.freedesktop.DBus.Peer" }
        guard destination == NotificationsInterface.busName, let interface = message.interface else { return false }
        if interface == "org.freedesktop.DBus.Properties" {
            guard let about = message.body.flatMap({ $0.childCount > 0 ? $0.child(0).string : nil }) else { return false }
            return !ownInterfaces.contains(about)
        }
        return !ownInterfaces.contains(interface)
    }

    private func pass(_ message: Message) {
        guard let upstream, let senders, let sender = message.sender else { return }
        // The daemon's tools read its history and pause it: for the bridge's own user only, as
        // the control interface (the bus may admit other users).
        senders.withSender(sender) { [weak self] caller in
            guard caller.userID == getuid() else {
                if message.expectsReply {
                    upstream.send(message.answer(error: DBusError(
                        name: "org.freedesktop.DBus.Error.AccessDenied",
                        message: "focus-bridge passes the daemon's own interfaces to its own user only")))
                }
                return
            }
            self?.forward(message, upstream: upstream)
        }
    }

    private func forward(_ message: Message, upstream: BusConnection) {
        guard inFlight < Self.maxInFlight else {
            if message.expectsReply {
                upstream.send(message.answer(error: DBusError(
                    name: "org.freedesktop.DBus.Error.LimitsExceeded",
                    message: "the notification daemon has \(Self.maxInFlight) calls of its tools unanswered; try again later")))
            }
            return
        }
        inFlight += 1
        let destination = message.destination == NotificationsInterface.busName ? daemonName : message.destination!
        let expectsReply = message.expectsReply
        downstream.send(message.forwardedCall(to: destination),
                        timeoutMilliseconds: BusDownstream.callTimeoutMilliseconds) { [weak self] result in
            self?.inFlight -= 1
            self?.answered()
            guard expectsReply else { return }
            switch result {
            case .success(let reply): upstream.send(message.answer(copying: reply))
            case .failure(let error): upstream.send(message.answer(error: error))
            }
        }
    }

    /// Re-broadcasts a signal the daemon sent on one of its own interfaces.
    func relay(_ signal: Signal) {
        upstream?.emitSignal(destination: nil, path: signal.path, interface: signal.interface,
                             name: signal.member, signal.parameters)
    }
}
