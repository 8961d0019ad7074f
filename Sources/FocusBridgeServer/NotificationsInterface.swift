import FocusBridgeCore
import FocusBridgeDBus

/// `org.freedesktop.Notifications` on the wire, both directions (Desktop Notifications spec 1.2):
/// the calls the bridge serves, the `Notify` it sends the daemon, the daemon's signals it reads
/// and the signals it sends applications. No other file reads or builds these messages by position.
enum NotificationsInterface {
    static let busName = "org.freedesktop.Notifications"
    static let name = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    static let notifySignature = "(susssasa{sv}i)"

    static func export(on bus: BusConnection, to bridge: Bridge) throws(DBusError) {
        try bus.export(path: path, interfaceXML: EmbeddedFiles.notificationsXML, interface: name) { call in
            switch call.methodName {
            case "Notify": bridge.notify(call, NotifyArguments(call.parameters))
            case "CloseNotification": bridge.close(call, id: call.parameters.child(0).uint32 ?? 0)
            case "GetCapabilities": call.reply(.tuple([.strings(bridge.capabilities)]))
            case "GetServerInformation":
                let info = bridge.serverInformation
                call.reply(.tuple([.string(info.name), .string(info.vendor), .string(info.version),
                                   .string(info.specVersion)]))
            default:
                call.fail(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod",
                                    message: "no method \(call.methodName)"))
            }
        }
    }

    /// The answer to `Notify`.
    static func reply(_ call: MethodCall, id: UInt32) { call.reply(.tuple([.uint32(id)])) }

    // MARK: Calls to the daemon

    /// `Notify` to the daemon at `name`; the result is the daemon's ID.
    static func notify(_ notification: ForwardedNotification, replacing daemonID: UInt32, on connection: BusConnection,
                       name: String, timeoutMilliseconds: Int32,
                       completion: @escaping (Result<UInt32, DBusError>) -> Void) {
        connection.call(name, path, self.name, "Notify", notification.arguments(replacing: daemonID), replyType: "(u)",
                        timeoutMilliseconds: timeoutMilliseconds) { result in
            completion(result.map { $0.child(0).uint32 ?? 0 })
        }
    }

    static func closeNotification(_ daemonID: UInt32, on connection: BusConnection, name: String,
                                  timeoutMilliseconds: Int32, completion: @escaping (DBusError?) -> Void) {
        connection.call(name, path, self.name, "CloseNotification", .tuple([.uint32(daemonID)]),
                        timeoutMilliseconds: timeoutMilliseconds) { result in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        }
    }

    static func capabilities(on connection: BusConnection, name: String, timeoutMilliseconds: Int32,
                             completion: @escaping (Result<[String]?, DBusError>) -> Void) {
        connection.call(name, path, self.name, "GetCapabilities", replyType: "(as)",
                        timeoutMilliseconds: timeoutMilliseconds) { result in
            completion(result.map { $0.child(0).strings })
        }
    }

    static func serverInformation(on connection: BusConnection, name: String, timeoutMilliseconds: Int32,
                                  completion: @escaping (Result<ServerInformation, DBusError>) -> Void) {
        connection.call(name, path, self.name, "GetServerInformation", replyType: "(ssss)",
                        timeoutMilliseconds: timeoutMilliseconds) { result in
            completion(result.map { reply in ServerInformation(reply: (0..<4).map { reply.child($0).string ?? "" }) })
        }
    }
}

/// `Notify`'s arguments `(susssasa{sv}i)` as the client sent them, each position read once. The
/// values stay the client's own GVariants, so what is forwarded unchanged is byte for byte the same.
struct NotifyArguments {
    /// The whole tuple, as the store keeps a held notification.
    let all: Variant
    let appName: Variant
    let replacesID: Variant
    let appIcon: Variant
    let summary: Variant
    let body: Variant
    let actions: Variant
    let hints: Variant
    let expireTimeout: Variant

    /// `arguments` must be of `notifySignature` (GDBus checks calls against the XML; the store's
    /// reader and `stored(type:bytes:)` check the rest).
    init(_ arguments: Variant) {
        all = arguments
        appName = arguments.child(0)
        replacesID = arguments.child(1)
        appIcon = arguments.child(2)
        summary = arguments.child(3)
        body = arguments.child(4)
        actions = arguments.child(5)
        hints = arguments.child(6)
        expireTimeout = arguments.child(7)
    }

    /// A held notification's stored arguments; nil when they are not a `Notify`'s.
    init?(storedType type: String, bytes: [UInt8]) {
        guard let arguments = Variant(type: type, bytes: bytes), arguments.typeString == NotificationsInterface.notifySignature
        else { return nil }
        self.init(arguments)
    }

    /// The bridge's own notifications (digests, "N more from App"): no actions unless given, no hints.
    static func own(appName: Variant, appIcon: Variant, summary: String, body: String, actions: [String] = []) -> NotifyArguments {
        NotifyArguments(.tuple([appName, .uint32(0), appIcon, .string(summary), .string(body), .strings(actions),
                                .dictionary([]), .int32(-1)]))
    }

    var byteCount: Int { all.byteCount }

    /// The core's view, for deciding.
    var request: NotificationRequest {
        var decoded: [String: HintValue] = [:]
        for (key, value) in hints.dictionaryEntries {
            decoded[key] = Self.hintValue(value.unboxed)
        }
        return NotificationRequest(
            appName: appName.string ?? "", replacesID: replacesID.uint32 ?? 0, appIcon: appIcon.string ?? "",
            summary: summary.string ?? "", body: body.string ?? "", actions: actions.strings ?? [],
            hints: decoded, expireTimeout: expireTimeout.int32 ?? -1)
    }

    private static func hintValue(_ value: Variant) -> HintValue {
        if let text = value.string { return .string(text) }
        if let number = value.integer { return .integer(number) }
        if let flag = value.bool { return .bool(flag) }
        if let number = value.double { return .double(number) }
        if let texts = value.strings { return .strings(texts) }
        return .other(signature: value.typeString)
    }

    /// The `Notify` for the daemon, as `shown` says: summary and body hidden or the client's,
    /// the tidied actions, the hints edited (`forwardedHints`); the rest as the client sent it.
    func forwarded(id: UInt32, request: NotificationRequest, shown: Shown, process: ProcessIdentity?) -> ForwardedNotification {
        let presentation = shown.presentation
        return ForwardedNotification(
            id: id, appKey: shown.app.key, level: shown.level, appName: appName, appIcon: appIcon,
            summary: presentation.summary.map(Variant.string) ?? summary,
            body: presentation.body.map(Variant.string) ?? body,
            actions: .strings(shown.actions.flat),
            hints: Self.forwardedHints(hints, presentation: presentation, request: request, app: shown.app, process: process),
            expireTimeout: expireTimeout)
    }

    /// The hints the daemon receives, following a `Presentation`: the bridge's own `x-focus-*`
    /// hints and the removed ones out, urgency and sound set, the sender's identity added; every
    /// other hint is passed on as the very same value, byte for byte.
    static func forwardedHints(_ original: Variant, presentation: Presentation, request: NotificationRequest,
                               app: AppIdentity, process: ProcessIdentity?) -> Variant {
        var entries = original.dictionaryEntries.filter { presentation.forwards(hint: $0.key) }
        entries.append(("urgency", .byte(presentation.urgency)))
        if presentation.suppressSound { entries.append(("suppress-sound", .bool(true))) }
        if request.hints["desktop-entry"] == nil, let entry = app.inferredDesktopEntry {
            entries.append(("desktop-entry", .string(entry)))
        }
        if request.hints["sender-pid"] == nil, let pid = process?.processID {
            entries.append(("sender-pid", .int64(Int64(pid))))
        }
        return .dictionary(entries)
    }
}

/// A notification on its way to the daemon: the client's arguments with the hints the bridge
/// adds, waiting for the daemon ID it replaces (known only when it is sent).
struct ForwardedNotification {
    let id: UInt32
    let appKey: String
    let level: InterruptionLevel
    let appName: Variant
    let appIcon: Variant
    let summary: Variant
    let body: Variant
    let actions: Variant
    let hints: Variant
    let expireTimeout: Variant

    /// The bytes of its arguments (they share the client's message: this is what waiting costs).
    var weight: Int {
        [appName, appIcon, summary, body, actions, hints, expireTimeout].reduce(0) { $0 + $1.byteCount }
    }

    /// The `Notify` arguments for the daemon, replacing `daemonID` (0 for a new one).
    func arguments(replacing daemonID: UInt32) -> Variant {
        .tuple([appName, .uint32(daemonID), appIcon, summary, body, actions, hints, expireTimeout])
    }
}

/// A signal of the daemon's, read: the IDs are the daemon's.
enum DaemonSignal {
    case closed(daemonID: UInt32, reason: CloseReason)
    case actionInvoked(daemonID: UInt32, key: String)
    /// `ActivationToken` and `NotificationReplied`: a text passed on as it came.
    case passOn(member: String, daemonID: UInt32, text: Variant)

    /// Nil for what is not one of the spec's signals in its shape.
    init?(_ signal: Signal) {
        let arguments = signal.parameters
        guard arguments.childCount == 2, let daemonID = arguments.child(0).uint32 else { return nil }
        switch signal.member {
        case "NotificationClosed":
            self = .closed(daemonID: daemonID, reason: arguments.child(1).uint32.map(CloseReason.init) ?? .undefined)
        case "ActionInvoked":
            guard let key = arguments.child(1).string else { return nil }
            self = .actionInvoked(daemonID: daemonID, key: key)
        case "ActivationToken", "NotificationReplied":
            let text = arguments.child(1)
            guard text.isString else { return nil }
            self = .passOn(member: signal.member, daemonID: daemonID, text: text)
        default:
            return nil
        }
    }

    var daemonID: UInt32 {
        switch self {
        case .closed(let id, _), .actionInvoked(let id, _), .passOn(_, let id, _): id
        }
    }
}

/// The signals applications receive, each sent only to the connections holding the ID; never
/// to the bridge itself (it holds its own digests and "N more" notifications).
struct NotificationSignals {
    let bus: BusConnection

    func closed(_ id: UInt32, reason: CloseReason, to holders: [Caller]) {
        for holder in holders {
            emit("NotificationClosed", to: holder.connection, .tuple([.uint32(id), .uint32(reason.rawValue)]))
        }
    }

    func actionInvoked(_ id: UInt32, key: String, to connections: [String]) {
        for connection in connections { emit("ActionInvoked", to: connection, .tuple([.uint32(id), .string(key)])) }
    }

    func passOn(_ member: String, _ id: UInt32, text: Variant, to connections: [String]) {
        for connection in connections { emit(member, to: connection, .tuple([.uint32(id), text])) }
    }

    private func emit(_ signal: String, to destination: String, _ arguments: Variant) {
        guard destination != bus.uniqueName else { return }
        bus.emitSignal(destination: destination, path: NotificationsInterface.path,
                       interface: NotificationsInterface.name, name: signal, arguments)
    }
}
