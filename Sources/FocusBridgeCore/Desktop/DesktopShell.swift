/// The desktops whose shell is the notification daemon: the bridge forwards to the shell's own
/// name on the session bus (`name` mode) instead of running a daemon of its own.
public struct DesktopShell: Equatable, Sendable {
    /// As people call it: `GNOME`, `Plasma`.
    public let desktop: String
    /// Where the shell serves `/org/freedesktop/Notifications`.
    public let busName: String

    public static let gnome = DesktopShell(desktop: "GNOME", busName: "org.gnome.Shell")
    public static let plasma = DesktopShell(desktop: "Plasma", busName: "org.kde.plasmashell")

    /// The shell `XDG_CURRENT_DESKTOP` (a colon-separated list, `ubuntu:GNOME`) names, if any.
    /// GNOME Flashback says `GNOME-Flashback:GNOME` but runs notification-daemon, not GNOME
    /// Shell: it is not taken for GNOME.
    public init?(xdgCurrentDesktop value: String) {
        let names = value.split(separator: ":").map { $0.uppercased() }
        if names.contains("GNOME-FLASHBACK") { return nil }
        if names.contains("GNOME") {
            self = .gnome
        } else if names.contains("KDE") {
            self = .plasma
        } else {
            return nil
        }
    }

    private init(desktop: String, busName: String) {
        self.desktop = desktop
        self.busName = busName
    }
}

/// Why the bridge uses the downstream it uses, where a reader acts on it: `focusctl doctor`
/// takes log mode that was asked for as meant, and log mode `auto` fell to as a problem.
public enum DownstreamReason {
    /// `log mode was asked for` (the configuration or the command line).
    public static func asked(_ mode: String) -> String { "\(mode) mode was asked for" }
}
