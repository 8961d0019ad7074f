/// A notification daemon `auto` mode knows by name: where Debian installs it outside PATH, the
/// bus names of its own tools, and whether it hands `org.freedesktop.Notifications` over.
public struct KnownDaemon: Equatable, Sendable {
    /// Its executable's file name.
    public let name: String
    /// Where it lives outside PATH, relative to a library folder (see `DaemonSearch`).
    public let libraryPaths: [String]
    /// Bus names its control tool calls besides `org.freedesktop.Notifications`: owned by the
    /// bridge and passed through with no configuration (swaync-client's `org.erikreider.swaync.cc`).
    public let vendorNames: [String]
    /// Owns the name with ALLOW_REPLACEMENT (notification-daemon): `--replace` can take it and run
    /// it behind the bridge. The others exit without the name and never hand it over.
    public let allowsReplacement: Bool

    init(_ name: String, libraryPaths: [String] = [], vendorNames: [String] = [], allowsReplacement: Bool = false) {
        self.name = name
        self.libraryPaths = libraryPaths
        self.vendorNames = vendorNames
        self.allowsReplacement = allowsReplacement
    }

    /// In `auto`'s order of preference: the small standalone daemons first (dunst, then the
    /// Wayland ones, which fall back to the next when they cannot start under X11), then the
    /// desktops' own (Xfce, GNOME Flashback/MATE-style notification-daemon, LXQt).
    public static let all: [KnownDaemon] = [
        KnownDaemon("dunst"),
        KnownDaemon("mako"),
        KnownDaemon("swaync", vendorNames: ["org.erikreider.swaync.cc"]),
        KnownDaemon("xfce4-notifyd", libraryPaths: ["xfce4/notifyd/xfce4-notifyd"]),
        KnownDaemon("notification-daemon", libraryPaths: ["notification-daemon/notification-daemon"],
                    allowsReplacement: true),
        KnownDaemon("lxqt-notificationd"),
    ]

    /// The names, in order, for sentences: "dunst, mako, …".
    public static var names: String { all.map(\.name).joined(separator: ", ") }

    /// The known daemon whose executable is `fileName` (a path's last part is used).
    public static func named(_ fileName: String) -> KnownDaemon? {
        let base = fileName.split(separator: "/").last.map(String.init) ?? fileName
        return all.first { $0.name == base }
    }

    /// The known daemon a command runs, by its executable.
    public static func running(_ command: [String]) -> KnownDaemon? {
        command.first.flatMap(named)
    }
}
