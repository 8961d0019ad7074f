/// The door a notification came in by: the interface its app called. Each door decodes its
/// calls into the one `NotificationRequest` and encodes what is shown back onto its own wire;
/// what happens in between is the same for both.
public enum Door: String, Sendable, Hashable, Codable {
    /// `org.freedesktop.Notifications` (the Desktop Notifications spec): apps hear
    /// `NotificationClosed` and `ActionInvoked` for their IDs.
    case fdo = "org.freedesktop.Notifications"
    /// `org.gtk.Notifications` (GLib's GNotification, and the desktop portal on GNOME): apps hear
    /// nothing back; the shell activates the app itself when a button is pressed.
    case gtk = "org.gtk.Notifications"

    /// The name `focusctl history` and `explain` show.
    public var interface: String { rawValue }

    /// Whether the apps holding a notification of this door are sent its signals.
    public var signalsHolders: Bool { self == .fdo }
}
