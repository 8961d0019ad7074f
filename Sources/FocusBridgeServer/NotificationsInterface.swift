import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop

/// `org.freedesktop.Notifications` on the wire, both directions (Desktop Notifications spec 1.2):
/// the calls the bridge serves, the `Notify` it sends the daemon, the daemon's signals it reads
/// and the signals it sends applications. No other file reads or builds these messages by position.
enum NotificationsInterface {
    static let busName = "org.freedesktop.Notifications"
    static let name = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    static let notifySignature = "(susssasa{sv}i)"
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let properties = "org.freedesktop.DBus.Properties"

    /// Serves the interface at `path` on the sd-bus connection: the methods, Introspect (the
    /// embedded XML) and Properties (it has none), as GDBus answered them before. Peer is
    /// sd-bus's own; other interfaces are the passthrough's or unknown.
    static func export(on bus: SdBusConnection, to bridge: Bridge) throws(DBusError) {
        // The header is compared in place: no String per call for the interface or member.
        try bus.serve(path: path) { message in
            guard message.kind == .methodCall, message.hasMemberField else { return false }
            if message.hasInterface(name) {
                served(IncomingCall(message), bridge)
            } else if message.hasInterface(introspectable) && message.hasMember("Introspect") {
                IncomingCall(message).reply { reply throws(DBusError) in try reply.append(EmbeddedFiles.notificationsXML) }
            } else if message.hasInterface(properties) {
                answerProperties(IncomingCall(message), message.member ?? "")
            } else {
                return false
            }
            return true
        }
    }

    /// The methods served and the signature of their arguments.
    private enum Served {
        case notify, closeNotification, getCapabilities, getServerInformation

        static let all: [(member: String, method: Served, signature: String)] = [
            ("Notify", .notify, "susssasa{sv}i"), ("CloseNotification", .closeNotification, "u"),
            ("GetCapabilities", .getCapabilities, ""), ("GetServerInformation", .getServerInformation, ""),
        ]
    }

    private static func served(_ call: IncomingCall, _ bridge: Bridge) {
        let message = call.message
        guard let (_, method, signature) = Served.all.first(where: { message.hasMember($0.member) }) else {
            return call.fail(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "No such method '\(call.member)'"))
        }
        guard message.hasSignature(signature) else {
            return call.fail(DBusError(name: DBusError.invalidArgs,
                                       message: "Type of message, '(\(message.signature))', does not match expected type '(\(signature))'"))
        }
        switch method {
        case .notify:
            do { bridge.notify(call, try NotifyArguments(message)) } catch { call.fail(error) }
        case .closeNotification:
            bridge.close(call, id: (try? message.readUInt32()) ?? 0)
        case .getCapabilities:
            let capabilities = bridge.capabilities
            call.reply { reply throws(DBusError) in try reply.append(strings: capabilities) }
        case .getServerInformation:
            let info = bridge.serverInformation
            call.reply { reply throws(DBusError) in
                for text in [info.name, info.vendor, info.version, info.specVersion] { try reply.append(text) }
            }
        }
    }

    /// The interface has no properties: an empty GetAll, and Get and Set refused.
    private static func answerProperties(_ call: IncomingCall, _ member: String) {
        let interface = (try? call.message.readString()) ?? ""
        guard interface == name else {
            return call.fail(DBusError(name: DBusError.invalidArgs, message: "No such interface '\(interface)'"))
        }
        switch member {
        case "GetAll":
            call.reply { reply throws(DBusError) in
                try reply.open("a", "{sv}")
                try reply.close()
            }
        case "Get", "Set":
            let property = (try? call.message.readString()) ?? ""
            call.fail(DBusError(name: DBusError.invalidArgs, message: "No such property '\(property)'"))
        default:
            call.fail(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "No such method '\(member)'"))
        }
    }

    /// The answer to `Notify`.
    static func reply(_ call: IncomingCall, id: UInt32) { call.reply(id) }

    // MARK: Calls to the daemon

    /// `Notify` to the daemon at `name`; the result is the daemon's ID.
    static func notify(_ notification: ForwardedNotification, replacing daemonID: UInt32, on connection: SdBusConnection,
                       name: String, timeoutMilliseconds: Int32,
                       completion: @escaping (Result<UInt32, DBusError>) -> Void) {
        let message: BusMessage
        do {
            message = try connection.methodCall(name, path, self.name, "Notify")
            try notification.append(to: message, replacing: daemonID)
        } catch {
            MainLoop.whenIdle { completion(.failure(error)) }
            return
        }
        connection.call(message, timeoutMilliseconds: timeoutMilliseconds) { result in
            completion(result.map { (try? $0.readUInt32()) ?? 0 })
        }
    }

    static func closeNotification(_ daemonID: UInt32, on connection: SdBusConnection, name: String,
                                  timeoutMilliseconds: Int32, completion: @escaping (DBusError?) -> Void) {
        call(connection, name, "CloseNotification", timeoutMilliseconds, { message throws(DBusError) in try message.append(daemonID) }) { result in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        }
    }

    static func capabilities(on connection: SdBusConnection, name: String, timeoutMilliseconds: Int32,
                             completion: @escaping (Result<[String]?, DBusError>) -> Void) {
        call(connection, name, "GetCapabilities", timeoutMilliseconds) { result in
            completion(result.map { try? $0.readStrings() })
        }
    }

    /// The same over `BusConnection`: the spawned daemon's start-up probe (`SpawnedDaemon`), off the hot path.
    static func capabilities(on connection: BusConnection, name: String, timeoutMilliseconds: Int32,
                             completion: @escaping (Result<[String]?, DBusError>) -> Void) {
        connection.call(name, path, self.name, "GetCapabilities", replyType: "(as)",
                        timeoutMilliseconds: timeoutMilliseconds) { result in
            completion(result.map { $0.child(0).strings })
        }
    }

    static func serverInformation(on connection: SdBusConnection, name: String, timeoutMilliseconds: Int32,
                                  completion: @escaping (Result<ServerInformation, DBusError>) -> Void) {
        call(connection, name, "GetServerInformation", timeoutMilliseconds) { result in
            completion(result.map { reply in ServerInformation(reply: (0..<4).map { _ in (try? reply.readString()) ?? "" }) })
        }
    }

    private static func call(_ connection: SdBusConnection, _ name: String, _ member: String, _ timeoutMilliseconds: Int32,
                             _ arguments: (BusMessage) throws(DBusError) -> Void = { _ in },
                             completion: @escaping (Result<BusMessage, DBusError>) -> Void) {
        do {
            let message = try connection.methodCall(name, path, self.name, member)
            try arguments(message)
            connection.call(message, timeoutMilliseconds: timeoutMilliseconds, completion: completion)
        } catch {
            MainLoop.whenIdle { completion(.failure(error)) }
        }
    }
}

/// `Notify`'s arguments `(susssasa{sv}i)` as the client sent them, each position read once. The
/// hints stay the client's own (`NotifyHints`): what is forwarded unchanged is byte for byte the
/// same.
///
/// An immutable class: it is captured while the caller is looked up and passed from the
/// decision to the delivery; as a struct each of those copies retained and released its texts,
/// the decoded request's and the message.
final class NotifyArguments {
    let appName: String
    let replacesID: UInt32
    let appIcon: String
    let summary: String
    let body: String
    let actions: [String]
    let hints: NotifyHints
    let expireTimeout: Int32
    /// The core's view, for deciding (decoded with the arguments, once).
    let request: NotificationRequest
    /// About what the arguments weigh on the wire (what holding or queueing them costs).
    let byteCount: Int

    /// A `Notify` call's arguments, read from the message (its signature already checked); the
    /// message is kept for the hints.
    init(_ message: BusMessage) throws(DBusError) {
        try message.rewind()
        appName = try message.readString()
        replacesID = try message.readUInt32()
        appIcon = try message.readString()
        summary = try message.readString()
        body = try message.readString()
        actions = try message.readStrings()
        var decoded: [String: HintValue] = [:]
        var weight = 0
        var entries = 0
        try message.readDictionary { key throws(DBusError) in
            let (value, size) = try message.readValue()
            decoded[key] = Self.hintValue(value)
            weight += key.utf8.count + size + 8
            entries += 1
        }
        expireTimeout = try message.readInt32()
        hints = entries == 0 ? .empty : .message(message)
        request = NotificationRequest(appName: appName, replacesID: replacesID, appIcon: appIcon, summary: summary,
                                      body: body, actions: actions, hints: decoded, expireTimeout: expireTimeout)
        byteCount = Self.textWeight(appName, appIcon, summary, body, actions) + 8 + weight
    }

    /// Arguments as a `Variant` of `notifySignature` (a held notification's stored ones, the
    /// bridge's own, a copy from history): the cold paths.
    init(_ arguments: Variant) {
        appName = arguments.child(0).string ?? ""
        replacesID = arguments.child(1).uint32 ?? 0
        appIcon = arguments.child(2).string ?? ""
        summary = arguments.child(3).string ?? ""
        body = arguments.child(4).string ?? ""
        actions = arguments.child(5).strings ?? []
        let hints = arguments.child(6)
        self.hints = .variant(hints)
        expireTimeout = arguments.child(7).int32 ?? -1
        var decoded: [String: HintValue] = [:]
        for (key, value) in hints.dictionaryEntries {
            decoded[key] = Self.hintValue(value.unboxed)
        }
        request = NotificationRequest(appName: appName, replacesID: replacesID, appIcon: appIcon, summary: summary,
                                      body: body, actions: actions, hints: decoded, expireTimeout: expireTimeout)
        byteCount = arguments.byteCount
    }

    /// A held notification's stored arguments; nil when they are not a `Notify`'s.
    convenience init?(storedType type: String, bytes: [UInt8]) {
        guard let arguments = Variant(type: type, bytes: bytes), arguments.typeString == NotificationsInterface.notifySignature
        else { return nil }
        self.init(arguments)
    }

    /// The bridge's own notifications (digests, "N more from App"): no actions unless given, no hints.
    static func own(appName: String, appIcon: String, summary: String, body: String, actions: [String] = []) -> NotifyArguments {
        NotifyArguments(.tuple([.string(appName), .uint32(0), .string(appIcon), .string(summary), .string(body), .strings(actions),
                                .dictionary([]), .int32(-1)]))
    }

    /// The whole tuple as the store keeps a held notification (GVariant's serialised form, the
    /// format of the state files): converted from the message here, off the hot path.
    var all: Variant {
        .tuple([.string(appName), .uint32(replacesID), .string(appIcon), .string(summary), .string(body),
                .strings(actions), hints.variant, .int32(expireTimeout)])
    }

    private static func textWeight(_ appName: String, _ appIcon: String, _ summary: String, _ body: String,
                                   _ actions: [String]) -> Int {
        // Added up one by one: an array of the four would be allocated for every Notify.
        appName.utf8.count + appIcon.utf8.count + summary.utf8.count + body.utf8.count + 4 * 5
            + actions.reduce(4) { $0 + $1.utf8.count + 5 }
    }

    private static func hintValue(_ value: BusMessage.ScalarValue) -> HintValue {
        switch value {
        case .string(let text): .string(text)
        case .integer(let number): .integer(number)
        case .bool(let flag): .bool(flag)
        case .double(let number): .double(number)
        case .strings(let texts): .strings(texts)
        case .other(let signature): .other(signature: signature)
        }
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
            summary: presentation.summary ?? summary, body: presentation.body ?? body,
            actions: shown.actions.flat,
            hints: Self.forwardedHints(hints, presentation: presentation, request: request, app: shown.app, process: process),
            expireTimeout: expireTimeout, weight: byteCount)
    }

    /// The hints the daemon receives, following a `Presentation`: the bridge's own `x-focus-*`
    /// hints and the removed ones out, urgency and sound set, the sender's identity added; every
    /// other hint is passed on as the very same value, byte for byte.
    static func forwardedHints(_ original: NotifyHints, presentation: Presentation, request: NotificationRequest,
                               app: AppIdentity, process: ProcessIdentity?) -> ForwardedHints {
        var added = ForwardedHints.Added(urgency: presentation.urgency, suppressSound: presentation.suppressSound)
        if request.hints["desktop-entry"] == nil, let entry = app.inferredDesktopEntry { added.desktopEntry = entry }
        if request.hints["sender-pid"] == nil, let pid = process?.processID { added.senderPID = Int64(pid) }
        return ForwardedHints(original: original, keeping: presentation, added: added)
    }
}

/// The client's hints, kept as they came: on the hot path the `Notify` message itself (its
/// seventh argument, copied entry by entry when forwarded), on the cold paths a `Variant`.
enum NotifyHints: Sendable {
    /// The client sent none: nothing to find again in the message when forwarding.
    case empty
    case message(BusMessage)
    case variant(Variant)

    /// The `a{sv}` as a `Variant` (for the store; off the hot path).
    var variant: Variant {
        switch self {
        case .empty: return .dictionary([])
        case .variant(let hints): return hints
        case .message(let message):
            do throws(DBusError) {
                try message.rewind()
                try message.skip("susssas")
                return try message.readVariant()
            } catch {
                return .dictionary([])
            }
        }
    }
}

/// The hints a forwarded `Notify` carries: the client's that the presentation keeps, unchanged,
/// then what the bridge adds. The rule and the added hints are plain values, not a closure and
/// an array: nothing is allocated for them per notification.
struct ForwardedHints: Sendable {
    /// The hints the bridge adds, in this order (urgency always).
    struct Added: Sendable {
        var urgency: UInt8
        var suppressSound = false
        var desktopEntry: String?
        var senderPID: Int64?
    }
    let original: NotifyHints
    /// Which of the client's hints go on (`Presentation.forwards`, from the two fields it reads:
    /// the notification is copied in and out of the forward queue, its whole presentation with
    /// it would be); nil: every one.
    let removedHints: Set<String>?
    let suppressSound: Bool
    /// Nil: none added.
    let added: Added?

    init(original: NotifyHints, keeping presentation: Presentation?, added: Added?) {
        self.original = original
        removedHints = presentation?.removedHints
        suppressSound = presentation?.suppressSound ?? false
        self.added = added
    }

    func keeps(_ key: String) -> Bool {
        guard let removedHints else { return true }
        return Presentation.forwards(hint: key, removedHints: removedHints, suppressSound: suppressSound)
    }

    /// Appends the `a{sv}` to `message`.
    func append(to message: BusMessage) throws(DBusError) {
        try message.openDictionary()
        switch original {
        case .empty: break
        case .message(let source):
            try source.rewind()
            try source.skip("susssas")
            try message.appendEntries(copying: source, where: keeps)
        case .variant(let hints):
            for (key, value) in hints.dictionaryEntries where keeps(key) {
                try message.open("e", "sv")
                try message.append(key)
                try message.append(value)
                try message.close()
            }
        }
        if let added {
            try message.appendEntry("urgency", byte: added.urgency)
            if added.suppressSound { try message.appendEntry("suppress-sound", bool: true) }
            if let entry = added.desktopEntry { try message.appendEntry("desktop-entry", string: entry) }
            if let pid = added.senderPID { try message.appendEntry("sender-pid", int64: pid) }
        }
        try message.close()
    }

    /// The same as a `Variant` (tests, the fuzz targets; off the hot path).
    var variant: Variant {
        var entries = original.variant.dictionaryEntries.filter { keeps($0.key) }
        if let added {
            entries.append(("urgency", .byte(added.urgency)))
            if added.suppressSound { entries.append(("suppress-sound", .bool(true))) }
            if let entry = added.desktopEntry { entries.append(("desktop-entry", .string(entry))) }
            if let pid = added.senderPID { entries.append(("sender-pid", .int64(pid))) }
        }
        return .dictionary(entries)
    }
}

/// A notification on its way to the daemon: the client's arguments with the hints the bridge
/// adds, waiting for the daemon ID it replaces (known only when it is sent).
///
/// A class, immutable: it goes into the forward queue, out of it and into the call's completion,
/// and each copy of a struct of a dozen texts retained and released them all.
final class ForwardedNotification: Sendable {
    let id: UInt32
    let appKey: String
    let level: InterruptionLevel
    let appName: String
    let appIcon: String
    let summary: String
    let body: String
    let actions: [String]
    let hints: ForwardedHints
    let expireTimeout: Int32
    /// About the bytes of its arguments (they share the client's message: this is what waiting costs).
    let weight: Int

    init(id: UInt32, appKey: String, level: InterruptionLevel, appName: String, appIcon: String, summary: String,
         body: String, actions: [String], hints: ForwardedHints, expireTimeout: Int32, weight: Int) {
        self.id = id
        self.appKey = appKey
        self.level = level
        self.appName = appName
        self.appIcon = appIcon
        self.summary = summary
        self.body = body
        self.actions = actions
        self.hints = hints
        self.expireTimeout = expireTimeout
        self.weight = weight
    }

    /// Appends the `Notify` arguments for the daemon, replacing `daemonID` (0 for a new one).
    func append(to message: BusMessage, replacing daemonID: UInt32) throws(DBusError) {
        try message.append(appName)
        try message.append(daemonID)
        try message.append(appIcon)
        try message.append(summary)
        try message.append(body)
        try message.append(strings: actions)
        try hints.append(to: message)
        try message.append(expireTimeout)
    }

    /// The same arguments as a `Variant` (tests, the fuzz targets; off the hot path).
    func arguments(replacing daemonID: UInt32) -> Variant {
        .tuple([.string(appName), .uint32(daemonID), .string(appIcon), .string(summary), .string(body), .strings(actions),
                hints.variant, .int32(expireTimeout)])
    }
}

/// A signal of the daemon's, read: the IDs are the daemon's.
enum DaemonSignal {
    case closed(daemonID: UInt32, reason: CloseReason)
    case actionInvoked(daemonID: UInt32, key: String)
    /// `ActivationToken` and `NotificationReplied`: a text passed on as it came.
    case passOn(member: String, daemonID: UInt32, text: String)

    /// Nil for what is not one of the spec's signals in its shape.
    init?(_ signal: BusMessage) {
        guard let member = signal.member else { return nil }
        switch (member, signal.signature) {
        case ("NotificationClosed", "uu"):
            guard let daemonID = try? signal.readUInt32(), let reason = try? signal.readUInt32() else { return nil }
            self = .closed(daemonID: daemonID, reason: CloseReason(rawValue: reason))
        case ("NotificationClosed", let signature) where signature.count == 2 && signature.hasPrefix("u"):
            // A reason of another basic type: closed all the same, for a reason not known.
            guard let daemonID = try? signal.readUInt32() else { return nil }
            self = .closed(daemonID: daemonID, reason: .undefined)
        case ("ActionInvoked", "us"):
            guard let daemonID = try? signal.readUInt32(), let key = try? signal.readString() else { return nil }
            self = .actionInvoked(daemonID: daemonID, key: key)
        case ("ActivationToken", "us"), ("NotificationReplied", "us"):
            guard let daemonID = try? signal.readUInt32(), let text = try? signal.readString() else { return nil }
            self = .passOn(member: member, daemonID: daemonID, text: text)
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
    let bus: SdBusConnection

    func closed(_ id: UInt32, reason: CloseReason, to holders: [Caller]) {
        for holder in holders {
            emit("NotificationClosed", to: holder.connection) { m throws(DBusError) in
                try m.append(id)
                try m.append(reason.rawValue)
            }
        }
    }

    func actionInvoked(_ id: UInt32, key: String, to connections: [String]) {
        for connection in connections {
            emit("ActionInvoked", to: connection) { m throws(DBusError) in
                try m.append(id)
                try m.append(key)
            }
        }
    }

    func passOn(_ member: String, _ id: UInt32, text: String, to connections: [String]) {
        for connection in connections {
            emit(member, to: connection) { m throws(DBusError) in
                try m.append(id)
                try m.append(text)
            }
        }
    }

    private func emit(_ signal: String, to destination: String, _ arguments: (BusMessage) throws(DBusError) -> Void) {
        guard destination != bus.uniqueName else { return }
        do {
            let message = try bus.signal(NotificationsInterface.path, NotificationsInterface.name, signal, destination: destination)
            try arguments(message)
            try bus.send(message)
        } catch {
            // A holder whose name is not valid any more, or a closed connection: nothing to tell.
        }
    }
}
