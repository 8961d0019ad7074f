import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop

/// `org.freedesktop.Notifications` as the bridge calls the daemon: its names, the calls (the
/// `Notify` put on the daemon's wire from a `ForwardedNotification`, `CloseNotification`,
/// `GetCapabilities`, `GetServerInformation`) and the daemon's signals read (`DaemonSignal`).
/// No other file builds these messages by position.
enum NotificationsInterface {
    static let busName = "org.freedesktop.Notifications"
    static let name = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"
    static let notifySignature = "(susssasa{sv}i)"
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let properties = "org.freedesktop.DBus.Properties"
    /// KDE's signal of an inline reply sent (`inline-reply`).
    static let notificationReplied = "NotificationReplied"

    /// `Notify` to the daemon at `name`; the result is the daemon's ID.
    static func notify(_ notification: ForwardedNotification, replacing daemonID: UInt32, on connection: MessageConnection,
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

    static func closeNotification(_ daemonID: UInt32, on connection: MessageConnection, name: String,
                                  timeoutMilliseconds: Int32, completion: @escaping (DBusError?) -> Void) {
        call(connection, name, "CloseNotification", timeoutMilliseconds, { message throws(DBusError) in try message.append(daemonID) }) { result in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        }
    }

    static func unInhibit(_ cookie: UInt32, on connection: MessageConnection, name: String, timeoutMilliseconds: Int32) {
        call(connection, name, "UnInhibit", timeoutMilliseconds, { message throws(DBusError) in try message.append(cookie) }) { _ in }
    }

    static func capabilities(on connection: MessageConnection, name: String, timeoutMilliseconds: Int32,
                             completion: @escaping (Result<[String]?, DBusError>) -> Void) {
        call(connection, name, "GetCapabilities", timeoutMilliseconds) { result in
            completion(result.map { try? $0.readStrings() })
        }
    }

    /// The same over `VariantConnection`: the spawned daemon's start-up probe (`SpawnedDaemon`), off the hot path.
    static func capabilities(on connection: VariantConnection, name: String, timeoutMilliseconds: Int32,
                             completion: @escaping (Result<[String]?, DBusError>) -> Void) {
        connection.call(name, path, self.name, "GetCapabilities", replyType: "(as)",
                        timeoutMilliseconds: timeoutMilliseconds) { result in
            completion(result.map { $0.child(0).strings })
        }
    }

    static func serverInformation(on connection: MessageConnection, name: String, timeoutMilliseconds: Int32,
                                  completion: @escaping (Result<ServerInformation, DBusError>) -> Void) {
        call(connection, name, "GetServerInformation", timeoutMilliseconds) { result in
            completion(result.map { reply in ServerInformation(reply: (0..<4).map { _ in (try? reply.readString()) ?? "" }) })
        }
    }

    private static func call(_ connection: MessageConnection, _ name: String, _ member: String, _ timeoutMilliseconds: Int32,
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

/// A notification on its way to the daemon: the client's request as shown — the summary and
/// body shown, the tidied actions, the hints the bridge edits — waiting for the daemon ID it
/// replaces (known only when it is sent). The app's name, icon and timeout are the request's.
///
/// A class, immutable: it goes into the forward queue, out of it and into the call's completion,
/// and each copy of a struct of a dozen texts retained and released them all.
final class ForwardedNotification: Sendable {
    let id: UInt32
    let appKey: String
    let level: InterruptionLevel
    /// What the app asked for.
    let request: NotificationRequest
    /// As shown: the summary and body (hidden when previews are), the actions tidied.
    let summary: String
    let body: String
    let actions: [String]
    let hints: ForwardedHints
    /// About the bytes of its arguments (they share the client's message: this is what waiting costs).
    let weight: Int

    init(id: UInt32, appKey: String, level: InterruptionLevel, request: NotificationRequest, summary: String,
         body: String, actions: [String], hints: ForwardedHints, weight: Int) {
        self.id = id
        self.appKey = appKey
        self.level = level
        self.request = request
        self.summary = summary
        self.body = body
        self.actions = actions
        self.hints = hints
        self.weight = weight
    }

    var appName: String { request.appName }
    var appIcon: String { request.appIcon }
    var expireTimeout: Int32 { request.expireTimeout }

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
        case ("ActivationToken", "us"), (NotificationsInterface.notificationReplied, "us"):
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

