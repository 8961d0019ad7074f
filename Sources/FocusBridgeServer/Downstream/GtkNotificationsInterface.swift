import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop

/// `org.gtk.Notifications`, GTK's notification interface: its names, defined once for both sides
/// of the bridge — the GTK door serves it (`GtkDoor`) and GNOME Shell serves it to the bridge
/// (`GtkShell`) — and the calls to the shell, `AddNotification` from a `GtkForward` and
/// `RemoveNotification`. No other file builds these messages by position.
enum GtkNotificationsInterface {
    static let busName = "org.gtk.Notifications"
    static let name = "org.gtk.Notifications"
    static let path = "/org/gtk/Notifications"
    /// The shell's answer for an app it cannot find (no desktop file), passed to the caller as
    /// the shell gives it.
    static let invalidApp = "org.gtk.Notifications.InvalidApp"
    static let addSignature = "ssa{sv}"
    static let removeSignature = "ss"

    /// `AddNotification` to `destination`; the shell answers with nothing.
    static func add(_ forward: GtkForward, on connection: MessageConnection, destination: String,
                    timeoutMilliseconds: Int32, completion: @escaping (Result<Void, DBusError>) -> Void) {
        let message: BusMessage
        do {
            message = try connection.methodCall(destination, path, name, "AddNotification")
            try forward.append(to: message)
        } catch {
            // Answered as a call is, never from inside the caller's loop over its queue.
            MainLoop.whenIdle { completion(.failure(error)) }
            return
        }
        connection.call(message, timeoutMilliseconds: timeoutMilliseconds) { result in
            completion(result.map { _ in () })
        }
    }

    /// `RemoveNotification(appID, id)` to `destination`.
    static func remove(appID: String, id: String, on connection: MessageConnection, destination: String,
                       timeoutMilliseconds: Int32, completion: @escaping (DBusError?) -> Void) {
        do {
            let message = try connection.methodCall(destination, path, name, "RemoveNotification")
            try message.append(appID)
            try message.append(id)
            connection.call(message, timeoutMilliseconds: timeoutMilliseconds) { result in
                if case .failure(let error) = result { completion(error) } else { completion(nil) }
            }
        } catch {
            completion(error)
        }
    }
}

/// One GTK notification on its way to the shell's `AddNotification`: the app's own ID for it,
/// and the dictionary as shown. Immutable, like `ForwardedNotification`.
final class GtkForward: ForwardPayload {
    let id: UInt32
    let appID: String
    let notificationID: String
    let dictionary: Variant
    let weight: Int

    init(id: UInt32, appID: String, notificationID: String, dictionary: Variant, weight: Int) {
        self.id = id
        self.appID = appID
        self.notificationID = notificationID
        self.dictionary = dictionary
        self.weight = weight
    }

    /// Appends `AddNotification`'s arguments.
    func append(to message: BusMessage) throws(DBusError) {
        try message.append(appID)
        try message.append(notificationID)
        try message.append(dictionary)
    }
}
