import FocusBridgeDBus
import Logging

/// Makes one session-bus service visible on the private bus in `spawn` mode (`[downstream]
/// session-names`): the daemon there finds dconf, xfconf, the accessibility bus and the like.
///
/// The relay owns the name on a connection of its own to the private bus, so every call that
/// reaches that connection is for this service, also one addressed to the connection's unique name
/// (GDBus proxies in the daemon call a service by its owner's unique name). Each call is sent to
/// the same name, path, interface and method on the session bus (which starts the service there
/// when it is activatable) and its reply or error goes back; the signals the service emits on the
/// session bus are emitted again on the private bus, from the name's owner there. Calls and signals
/// go through the connection that takes `Notify` (sd-bus): one connection keeps the order the
/// service sent them in, between its replies and its signals (dconf tells its own writes from
/// others' by it) and with a `Notify` that came after a setting it announced (xfconf's Do Not
/// Disturb).
///
/// Only connections on the private bus reach the relay, and that bus admits the user's own
/// processes only: nobody gains a way into the session who did not have one.
final class SessionRelay {
    let name: String
    private let connection: VariantConnection
    /// The session bus connection that takes `Notify` (sd-bus): the service's calls and session.
    private let session: MessageConnection
    private var subscription: MessageConnection.Match?
    /// Calls relayed and not yet answered; past `maxInFlight` more are refused at once, so a
    /// hung service cannot make the bridge keep an unbounded pile of them.
    private var inFlight = 0
    static let maxInFlight = 64

    private init(name: String, connection: VariantConnection, session: MessageConnection) {
        self.name = name
        self.connection = connection
        self.session = session
    }

    /// Relays each of `names` from `session` onto the bus at `privateAddress`; a name that cannot
    /// be owned there is logged and left out. Call before the daemon starts: it looks for these
    /// services as it starts.
    static func start(names: [String], privateAddress: String, session: MessageConnection,
                      logger: Logger) -> [SessionRelay] {
        var relays: [SessionRelay] = []
        var seen = Set<String>()
        for name in names where seen.insert(name).inserted {
            do {
                let connection = try VariantConnection.connect(address: privateAddress)
                let relay = SessionRelay(name: name, connection: connection, session: session)
                try relay.install()
                relays.append(relay)
            } catch {
                logger.warning("cannot relay the session's \(name) to the daemon's bus: \(error.message)")
            }
        }
        if !relays.isEmpty {
            logger.info("the daemon's bus sees these session services: \(relays.map(\.name).joined(separator: ", "))")
        }
        return relays
    }

    /// Diverts every call first, then takes the name: no call can arrive unrelayed.
    private func install() throws(DBusError) {
        connection.divertIncomingCalls(where: { _ in true }, to: { [weak self] call in self?.relay(call) })
        switch try connection.requestName(name) {
        case .primaryOwner, .alreadyOwner: break
        case .exists, .inQueue:
            throw DBusError(name: DBusError.failed, message: "another connection owns it on that bus")
        }
        // Signals come from the service's unique name: follow who owns the name.
        try session.watchName(name) { [weak self] owner in self?.follow(owner) }
    }

    private func follow(_ owner: String?) {
        subscription?.cancel()
        subscription = nil
        guard let owner else { return }
        subscription = try? session.cancellableMatch("type='signal',sender='\(owner)'") { [weak self] signal in
            self?.emit(signal)
        }
    }

    /// The call as sd-bus sends it on `signals`, the session connection the service's signals
    /// are heard on: its replies and its signals then arrive in the order the service sent them
    /// (dconf's engine tells its own writes from others' by that order).
    private func sessionCall(_ call: RelayedMessage) throws(DBusError) -> BusMessage {
        let message = try session.methodCall(name, call.path ?? "/", call.interface, call.member ?? "")
        if let body = call.body { try message.appendBody(body, fileDescriptors: call.fileDescriptors) }
        if !call.expectsReply { try message.expectNoReply() }
        return message
    }

    private func relay(_ call: RelayedMessage) {
        let forwarded: BusMessage
        do { forwarded = try sessionCall(call) } catch {
            if call.expectsReply { connection.send(call.answer(error: error)) }
            return
        }
        guard call.expectsReply else {
            try? session.send(forwarded)
            return
        }
        guard inFlight < Self.maxInFlight else {
            connection.send(call.answer(error: DBusError(
                name: "org.freedesktop.DBus.Error.LimitsExceeded",
                message: "focus-bridge has \(Self.maxInFlight) calls to the session's \(name) unanswered; try again later")))
            return
        }
        inFlight += 1
        session.call(forwarded, timeoutMilliseconds: BusDownstream.callTimeoutMilliseconds) { [weak self] result in
            guard let self else { return }
            self.inFlight -= 1
            switch result {
            case .success(let answer):
                do throws(DBusError) {
                    var fds: [Int32] = []
                    let body = try answer.readBody(fileDescriptors: &fds)
                    self.connection.send(call.answer(body: body, fileDescriptors: fds))
                } catch {
                    self.connection.send(call.answer(error: error))
                }
            case .failure(let error): self.connection.send(call.answer(error: error))
            }
        }
    }

    /// A signal of the service on the session bus, emitted again on the private bus.
    private func emit(_ signal: BusMessage) {
        guard let path = signal.path, let interface = signal.interface, let member = signal.member,
              let body = try? signal.readBody() else { return }
        connection.emitSignal(destination: nil, path: path, interface: interface, name: member, body)
    }
}
