import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop

/// The GTK door: `org.gtk.Notifications` as GLib's GNotification and the desktop portal call it
/// on GNOME. A call is decoded here once into the wire-neutral request (`GtkArguments`) and goes
/// through the same plan and execution as the fdo door's; what is shown is encoded once
/// (`GtkArguments.forwarded`) for the shell (`GtkShell`). Apps of this door are answered with
/// nothing and hear nothing back: the shell activates the app itself. The interface's names are
/// `GtkNotificationsInterface`'s.
enum GtkDoor {
    static let storedSignature = "(" + GtkNotificationsInterface.addSignature + ")"

    /// Whether the bridge serves this door: where GNOME Shell serves it (the desktop says GNOME,
    /// or the name has an owner already). Elsewhere GLib finds no owner and uses the fdo door.
    static func wanted(xdgCurrentDesktop: String?, nameHasOwner: Bool) -> Bool {
        nameHasOwner || xdgCurrentDesktop.flatMap(DesktopShell.init(xdgCurrentDesktop:)) == .gnome
    }

    /// Serves the interface at its path on the sd-bus connection.
    static func export(on bus: MessageConnection, to bridge: Bridge) throws(DBusError) {
        try bus.serve(path: GtkNotificationsInterface.path) { message in
            guard message.kind == .methodCall, message.hasMemberField else { return false }
            // A call is made only for what is answered here: one dropped unanswered fails.
            if message.hasInterface(GtkNotificationsInterface.name) {
                served(IncomingCall(message), bridge)
            } else if message.hasInterface(NotificationsInterface.introspectable) && message.hasMember("Introspect") {
                IncomingCall(message).reply { reply throws(DBusError) in try reply.append(EmbeddedFiles.gtkNotificationsXML) }
            } else {
                return false
            }
            return true
        }
    }

    private static func served(_ call: IncomingCall, _ bridge: Bridge) {
        let message = call.message
        let expected: String
        if message.hasMember("AddNotification") {
            expected = GtkNotificationsInterface.addSignature
        } else if message.hasMember("RemoveNotification") {
            expected = GtkNotificationsInterface.removeSignature
        } else {
            return call.fail(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "No such method '\(call.member)'"))
        }
        guard message.hasSignature(expected) else {
            return call.fail(DBusError(name: DBusError.invalidArgs,
                                       message: "Type of message, '(\(message.signature))', does not match expected type '(\(expected))'"))
        }
        do {
            try message.rewind()
            let appID = try message.readString()
            let id = try message.readString()
            guard GtkNotification.isValidAppID(appID) else {
                return call.fail(DBusError(name: GtkNotificationsInterface.invalidApp, message: "The app by ID \"\(appID.escapingControlCharacters)\" could not be found"))
            }
            if expected == GtkNotificationsInterface.removeSignature {
                bridge.removeGtk(call, appID: appID, id: id)
            } else {
                bridge.addGtk(GtkWaiter(call), GtkArguments(appID: appID, id: id, dictionary: try message.readVariant()))
            }
        } catch {
            call.fail(error)
        }
    }
}

/// An `AddNotification` is answered, with nothing, once its row is recorded.
final class GtkWaiter: IDWaiter {
    let call: IncomingCall
    init(_ call: IncomingCall) { self.call = call }
    var sender: String { call.sender }
    func answer(_ id: UInt32) { call.reply() }
    func fail(_ error: DBusError) { call.fail(error) }
}

/// `AddNotification`'s arguments as the app sent them: the dictionary kept whole (what is shown
/// is the app's own, but for what the decision changes), the keys a decision reads decoded once.
final class GtkArguments {
    let notification: GtkNotification
    /// The `a{sv}` as sent.
    let dictionary: Variant
    let request: NotificationRequest
    let byteCount: Int

    init(appID: String, id: String, dictionary: Variant) {
        var notification = GtkNotification(appID: appID, id: id)
        var entries = 0
        for (key, boxed) in dictionary.dictionaryEntries {
            entries += 1
            let value = boxed.unboxed
            switch key {
            case "title": notification.title = value.string ?? ""
            case "body": notification.body = value.string ?? ""
            case "priority": notification.priority = value.string.flatMap(GtkNotification.Priority.init(rawValue:))
            case "urgent": notification.urgent = value.bool
            case "category": notification.category = value.string
            case "buttons":
                notification.buttonLabels = value.children.map { button in
                    button.dictionaryEntries.first { $0.key == "label" }?.value.unboxed.string ?? ""
                }
            default: break
            }
        }
        self.notification = notification
        self.dictionary = dictionary.typeString == "a{sv}" ? dictionary : .dictionary([])
        request = notification.request()
        byteCount = appID.utf8.count + id.utf8.count + 8 + dictionary.byteCount + entries
    }

    private init(_ decoded: GtkArguments, replacing replacesID: UInt32) {
        notification = decoded.notification
        dictionary = decoded.dictionary
        byteCount = decoded.byteCount
        var request = decoded.request
        request.replacesID = replacesID
        self.request = request
    }

    /// The same notification, replacing bridge ID `replacesID`: what was decoded is kept (the
    /// dictionary is read once per call), only the request says what it replaces.
    func replacing(_ replacesID: UInt32) -> GtkArguments {
        replacesID == request.replacesID ? self : GtkArguments(self, replacing: replacesID)
    }

    /// A held one's stored arguments; nil when they are not an `AddNotification`'s.
    convenience init?(storedType type: String, bytes: [UInt8]) {
        guard type == GtkDoor.storedSignature, let stored = Variant(type: type, bytes: bytes) else { return nil }
        self.init(appID: stored.child(0).string ?? "", id: stored.child(1).string ?? "", dictionary: stored.child(2))
    }

    /// The whole call as the store keeps a held notification.
    var all: Variant { .tuple([.string(notification.appID), .string(notification.id), dictionary]) }

    /// What is shown, encoded: the app's dictionary with the title and body the presentation
    /// shows, the priority of the decided urgency and the buttons as tidied (in their new order,
    /// a destructive one's label marked; the bridge's quick actions are not the app's to
    /// activate and are left out). Every other key, the default action with it, goes as sent.
    func forwarded(id: UInt32, shown: Shown) -> GtkForward {
        let presentation = shown.presentation
        let sent = dictionary.dictionaryEntries  // read once: each read makes a Variant per entry
        let buttons = sent.first { $0.key == "buttons" }?.value.unboxed.children ?? []
        var tidied: [Variant] = []
        for pair in shown.actions.actions {
            let original = shown.actions.originalKeys[pair.key] ?? pair.key
            guard let index = GtkNotification.buttonIndex(forKey: original), index < buttons.count else { continue }
            let entries = buttons[index].dictionaryEntries.map { entry in
                entry.key == "label" ? (key: "label", value: Variant.string(pair.label)) : entry
            }
            tidied.append(.dictionary(entries))
        }
        var entries: [(key: String, value: Variant)] = []
        var hadBody = false
        for entry in sent {
            switch entry.key {
            case "body": hadBody = true
            case "title", "priority", "buttons": continue
            default: entries.append(entry)
            }
        }
        entries.append(("title", .string(presentation.summary ?? notification.title)))
        let body = presentation.body ?? notification.body
        if !body.isEmpty || hadBody {
            entries.append(("body", .string(body)))
        }
        entries.append(("priority", .string(notification.priority(forUrgency: presentation.urgency).rawValue)))
        if !tidied.isEmpty { entries.append(("buttons", .array(of: "a{sv}", tidied))) }
        return GtkForward(id: id, appID: notification.appID, notificationID: notification.id,
                          dictionary: .dictionary(entries), weight: byteCount)
    }
}
