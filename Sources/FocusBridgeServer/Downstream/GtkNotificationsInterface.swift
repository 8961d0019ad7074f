import FocusBridgeCore
import FocusBridgeDBus

/// `org.gtk.Notifications`, GTK's notification interface: its names, defined once for both sides
/// of the bridge: the GTK door serves it (`GtkDoor`) and GNOME Shell serves it to the bridge
/// (`GtkShell`).
enum GtkNotificationsInterface {
    static let busName = "org.gtk.Notifications"
    static let name = "org.gtk.Notifications"
    static let path = "/org/gtk/Notifications"
    /// The shell's answer for an app it cannot find (no desktop file), passed to the caller as
    /// the shell gives it.
    static let invalidApp = "org.gtk.Notifications.InvalidApp"
    static let addSignature = "ssa{sv}"
    static let removeSignature = "ss"
}

/// One GTK notification on its way to the shell's `AddNotification`: the app's own ID for it,
/// and the dictionary as shown. Immutable, like `ForwardedNotification`.
final class GtkForward {
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
}
