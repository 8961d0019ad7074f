/// The session-bus services made visible on the private bus in `spawn` mode (`[downstream]
/// session-names`), and which names may be.
///
/// The daemon behind the bridge runs on a bus that has none of the session's services, yet
/// swaync saves Do Not Disturb through dconf, xfce4-notifyd reads its settings from xfconf and
/// GTK and Qt daemons ask the session for the accessibility bus. The bridge owns each of these
/// names on the private bus and relays it to the same name on the session bus.
public enum SessionNames {
    /// Accessibility (GTK, Qt), GSettings' dconf writer (swaync's Do Not Disturb), xfconf
    /// (xfce4-notifyd's theme, position, Do Not Disturb, per-app settings), the desktop portal
    /// (settings such as the colour scheme) and the screen saver (idle and lock state).
    public static let defaults = [
        "org.a11y.Bus", "ca.desrt.dconf", "org.xfce.Xfconf", "org.freedesktop.portal.Desktop",
        "org.freedesktop.ScreenSaver",
    ]

    /// Names that are never relayed: the bus's own, the one the daemon owns on the private bus,
    /// and the bridge's own on the session bus (a call would come straight back to the bridge).
    public static let reserved: Set<String> = [
        "org.freedesktop.DBus", "org.freedesktop.Notifications", "org.focusbridge.FocusBridge",
    ]

    /// Why `name` cannot be relayed, in words for a configuration error; nil when it can.
    /// A name in `passthroughNames` is owned by the bridge on the session bus and by the daemon on
    /// the private bus: relaying it too would send calls round in a circle.
    public static func problem(with name: String, passthroughNames: [String]) -> String? {
        if !isWellKnownBusName(name) {
            return "\"\(name)\" is not a well-known bus name (like \"org.example.Service\")"
        }
        if reserved.contains(name) {
            return "\"\(name)\" cannot be relayed: it is the bus's, the daemon's or the bridge's own name"
        }
        if passthroughNames.contains(name) {
            return "\"\(name)\" is in `passthrough-names` too: a name is passed to the daemon or relayed from the session, not both"
        }
        return nil
    }

    /// A well-known bus name as the D-Bus specification defines it: two or more elements of
    /// `[A-Za-z0-9_-]` separated by dots, none starting with a digit, at most 255 bytes.
    public static func isWellKnownBusName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 255 else { return false }
        let elements = name.split(separator: ".", omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        return elements.allSatisfy { element in
            guard let first = element.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
            return element.unicodeScalars.allSatisfy { scalar in
                ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                    || scalar == "_" || scalar == "-"
            }
        }
    }
}
