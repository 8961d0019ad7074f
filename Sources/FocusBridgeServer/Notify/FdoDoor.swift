import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop

/// The fdo door: `org.freedesktop.Notifications` as applications call it (Desktop Notifications
/// spec 1.2). A call is decoded here once into the wire-neutral request (`NotifyArguments.request`)
/// and handed to the bridge; what is shown is encoded from the client's own arguments once
/// (`NotifyArguments.forwarded`); the signals applications receive are sent from here
/// (`NotificationSignals`). No other file reads these messages by position.
enum FdoDoor {
    typealias Interface = NotificationsInterface

    /// Serves the interface at its path on the sd-bus connection: the methods, Introspect (the
    /// embedded XML) and Properties (it has none). Peer is sd-bus's own; other interfaces are the
    /// passthrough's or unknown.
    static func export(on bus: MessageConnection, to bridge: Bridge) throws(DBusError) {
        // The header is compared in place: no String per call for the interface or member.
        try bus.serve(path: Interface.path) { message in
            guard message.kind == .methodCall, message.hasMemberField else { return false }
            if message.hasInterface(Interface.name) {
                served(IncomingCall(message), bridge)
            } else if message.hasInterface(Interface.introspectable) && message.hasMember("Introspect") {
                IncomingCall(message).reply { reply throws(DBusError) in try reply.append(EmbeddedFiles.notificationsXML) }
            } else if message.hasInterface(Interface.properties) {
                answerProperties(IncomingCall(message), message.member ?? "", bridge)
            } else {
                return false
            }
            return true
        }
    }

    /// The methods served and the signature of their arguments.
    private enum Served {
        case notify, closeNotification, getCapabilities, getServerInformation, inhibit, unInhibit

        static let all: [(member: String, method: Served, signature: String)] = [
            ("Notify", .notify, "susssasa{sv}i"), ("CloseNotification", .closeNotification, "u"),
            ("GetCapabilities", .getCapabilities, ""), ("GetServerInformation", .getServerInformation, ""),
            ("Inhibit", .inhibit, "ssa{sv}"), ("UnInhibit", .unInhibit, "u"),
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
        case .inhibit:
            let desktopEntry = (try? message.readString()) ?? ""
            let reason = (try? message.readString()) ?? ""
            guard let cookie = bridge.inhibit(connection: call.sender, desktopEntry: desktopEntry, reason: reason) else {
                return call.fail(DBusError(name: "org.freedesktop.DBus.Error.LimitsExceeded",
                                           message: "too many inhibitions (at most \(Inhibitions.maxPerConnection) per connection, \(Inhibitions.maxInAll) in all)"))
            }
            call.reply(cookie)
        case .unInhibit:
            bridge.inhibitions.uninhibit((try? message.readUInt32()) ?? 0, connection: call.sender)
            call.reply()
        }
    }

    /// The interface's one property, `Inhibited` (read-only).
    private static func answerProperties(_ call: IncomingCall, _ member: String, _ bridge: Bridge) {
        let interface = (try? call.message.readString()) ?? ""
        guard interface == Interface.name else {
            return call.fail(DBusError(name: DBusError.invalidArgs, message: "No such interface '\(interface)'"))
        }
        let inhibited = bridge.inhibitions.isInhibited
        switch member {
        case "GetAll":
            call.reply { reply throws(DBusError) in
                try reply.openDictionary()
                try reply.appendEntry("Inhibited", bool: inhibited)
                try reply.close()
            }
        case "Get", "Set":
            let property = (try? call.message.readString()) ?? ""
            guard property == "Inhibited" else {
                return call.fail(DBusError(name: DBusError.invalidArgs, message: "No such property '\(property)'"))
            }
            guard member == "Get" else {
                return call.fail(DBusError(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "Property 'Inhibited' is read-only"))
            }
            call.reply { reply throws(DBusError) in try reply.append(Variant.boxed(.bool(inhibited))) }
        default:
            call.fail(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "No such method '\(member)'"))
        }
    }
}

/// A hint read from the message straight into the core's value: its cases are `readValue`'s.
extension HintValue: BusScalarValue {}

/// A `Notify` call waits for its ID until the commit has it.
extension IncomingCall: IDWaiter {
    func answer(_ id: UInt32) { reply(id) }
}

/// `Notify`'s arguments `(susssasa{sv}i)` as the client sent them, each position read once. The
/// hints stay the client's own (`NotifyHints`): what is forwarded unchanged is byte for byte the
/// same.
///
/// An immutable class: it is captured while the caller is looked up and passed from the
/// decision to the delivery; as a struct each of those copies retained and released its texts,
/// the decoded request's and the message.
final class NotifyArguments {
    /// The eight positions, decoded once: what the core decides on, and what is encoded back
    /// (but the hints, forwarded from `hints`).
    let request: NotificationRequest
    /// The client's hints as they came, for forwarding byte for byte.
    let hints: NotifyHints
    /// About what the arguments weigh on the wire (what holding or queueing them costs).
    let byteCount: Int

    /// A `Notify` call's arguments, read from the message (its signature already checked); the
    /// message is kept for the hints.
    init(_ message: BusMessage) throws(DBusError) {
        try message.rewind()
        let appName = try message.readString()
        let replacesID = try message.readUInt32()
        let appIcon = try message.readString()
        let summary = try message.readString()
        let body = try message.readString()
        let actions = try message.readStrings()
        var decoded: [String: HintValue] = [:]
        var weight = 0
        var entries = 0
        try message.readDictionary { key throws(DBusError) in
            let (value, size) = try message.readValue(as: HintValue.self)
            decoded[key] = value
            weight += key.utf8.count + size + 8
            entries += 1
        }
        let expireTimeout = try message.readInt32()
        hints = entries == 0 ? .empty : .message(message)
        request = NotificationRequest(appName: appName, replacesID: replacesID, appIcon: appIcon, summary: summary,
                                      body: body, actions: actions, hints: decoded, expireTimeout: expireTimeout)
        byteCount = Self.textWeight(appName, appIcon, summary, body, actions) + 8 + weight
    }

    /// Arguments as a `Variant` of `notifySignature` (a held notification's stored ones, the
    /// bridge's own, a copy from history): the cold paths.
    init(_ arguments: Variant) {
        let hints = arguments.child(6)
        self.hints = .variant(hints)
        var decoded: [String: HintValue] = [:]
        for (key, value) in hints.dictionaryEntries {
            decoded[key] = Self.hintValue(value.unboxed)
        }
        request = NotificationRequest(appName: arguments.child(0).string ?? "", replacesID: arguments.child(1).uint32 ?? 0,
                                      appIcon: arguments.child(2).string ?? "", summary: arguments.child(3).string ?? "",
                                      body: arguments.child(4).string ?? "", actions: arguments.child(5).strings ?? [],
                                      hints: decoded, expireTimeout: arguments.child(7).int32 ?? -1)
        byteCount = arguments.byteCount
    }

    var appName: String { request.appName }
    var appIcon: String { request.appIcon }
    var summary: String { request.summary }
    var body: String { request.body }

    /// The arguments rebuilt from what history keeps of a request (a copy shown again, without
    /// its actions; a snoozed one, with them): app name, icon, summary, body, actions, timeout
    /// and the kept hints, each of the type clients send (urgency a byte).
    convenience init(rebuilding request: NotificationRequest) {
        var hints: [(key: String, value: Variant)] = []
        for name in request.hints.keys.sorted() {
            let value: Variant
            switch request.hints[name]! {
            case .string(let text): value = .string(text)
            case .integer(let number):
                if name == "urgency" { value = .byte(UInt8(clamping: number)) }
                else if let small = Int32(exactly: number) { value = .int32(small) } else { value = .int64(number) }
            case .bool(let flag): value = .bool(flag)
            case .double(let number): value = .double(number)
            case .strings(let items): value = .strings(items)
            case .other: continue
            }
            hints.append((name, .boxed(value)))
        }
        self.init(.tuple([.string(request.appName), .uint32(request.replacesID), .string(request.appIcon),
                          .string(request.summary), .string(request.body), .strings(request.actions),
                          .dictionary(hints), .int32(request.expireTimeout)]))
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
        .tuple([.string(request.appName), .uint32(request.replacesID), .string(request.appIcon), .string(request.summary),
                .string(request.body), .strings(request.actions), hints.variant, .int32(request.expireTimeout)])
    }

    private static func textWeight(_ appName: String, _ appIcon: String, _ summary: String, _ body: String,
                                   _ actions: [String]) -> Int {
        // Added up one by one: an array of the four would be allocated for every Notify.
        appName.utf8.count + appIcon.utf8.count + summary.utf8.count + body.utf8.count + 4 * 5
            + actions.reduce(4) { $0 + $1.utf8.count + 5 }
    }

    private static func hintValue(_ value: Variant) -> HintValue {
        if let text = value.string { return .string(text) }
        if let number = value.integer { return .integer(number) }
        if let flag = value.bool { return .bool(flag) }
        if let number = value.double { return .double(number) }
        if let texts = value.strings { return .strings(texts) }
        return .other(signature: value.typeString)
    }

    /// What is shown, encoded: the `Notify` for the daemon as `shown` says — summary and body
    /// hidden or the client's, the tidied actions, the hints edited (`forwardedHints`); the rest
    /// as the client sent it.
    func forwarded(id: UInt32, shown: Shown, process: ProcessIdentity?) -> ForwardedNotification {
        let presentation = shown.presentation
        return ForwardedNotification(
            id: id, appKey: shown.app.key, level: shown.level, request: request,
            summary: presentation.summary ?? request.summary, body: presentation.body ?? request.body,
            actions: shown.actions.flat,
            hints: Self.forwardedHints(hints, presentation: presentation, request: request, app: shown.app, process: process),
            weight: byteCount)
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

/// The signals applications receive, each sent only to the connections holding the ID; never
/// to the bridge itself (it holds its own digests and "N more" notifications), nor to an app
/// of the GTK door (its door has no signals).
final class NotificationSignals {
    let bus: MessageConnection
    /// The `NotificationClosed` signals of a large release, told `closingsPerPass` per pass of
    /// the main loop, so that a reply is never queued behind thousands of them.
    private var closings: [(id: UInt32, reason: CloseReason, holders: [Caller])] = []
    private var closingStart = 0
    private var closingScheduled = false
    static let closingsPerPass = 256

    init(bus: MessageConnection) { self.bus = bus }

    /// Tells each holder of many that its notification closed, a slice per main-loop pass.
    func closedMany(_ items: [(id: UInt32, reason: CloseReason, holders: [Caller])]) {
        closings.append(contentsOf: items)
        tellClosings()
    }

    /// Tells the next holders of the backlog; what is left waits for the loop to be idle
    /// (the signals already sent written out first).
    private func tellClosings() {
        var told = 0
        while closingStart < closings.count, told < Self.closingsPerPass {
            let closing = closings[closingStart]
            closingStart += 1
            told += 1
            closed(closing.id, reason: closing.reason, to: closing.holders)
        }
        guard closingStart < closings.count else {
            closings = []
            closingStart = 0
            return
        }
        guard !closingScheduled else { return }
        closingScheduled = true
        MainLoop.whenIdle { [weak self] in
            guard let self else { return }
            closingScheduled = false
            tellClosings()
        }
    }

    func closed(_ id: UInt32, reason: CloseReason, to holders: [Caller]) {
        for holder in holders where holder.door.signalsHolders {
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

    /// `PropertiesChanged` for `Inhibited`, to everyone listening.
    func inhibitedChanged(_ inhibited: Bool) {
        do {
            let message = try bus.signal(NotificationsInterface.path, NotificationsInterface.properties, "PropertiesChanged")
            try message.append(NotificationsInterface.name)
            try message.openDictionary()
            try message.appendEntry("Inhibited", bool: inhibited)
            try message.close()
            try message.append(strings: [])
            try bus.send(message)
        } catch {
            // A closed connection: nobody to tell.
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
