import FocusBridgeSystem
#if canImport(Glibc)
import Glibc
#endif

/// Where the session and the system bus are, found as GLib found them (without X11
/// autolaunching: `SessionBusAddress.isKnown` keeps the bridge from needing it).
enum BusAddress {
    /// `DBUS_SESSION_BUS_ADDRESS`, else the systemd user bus at `$XDG_RUNTIME_DIR/bus`.
    static func session() throws(DBusError) -> String {
        if let address = Environment.variable("DBUS_SESSION_BUS_ADDRESS"), !address.isEmpty { return address }
        if let runtime = Environment.variable("XDG_RUNTIME_DIR"), !runtime.isEmpty, isSocket(runtime + "/bus") {
            return "unix:path=" + escaped(runtime + "/bus")
        }
        throw DBusError(name: DBusError.failed,
                        message: "cannot find the session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no $XDG_RUNTIME_DIR/bus")
    }

    /// `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket.
    static func system() throws(DBusError) -> String {
        if let address = Environment.variable("DBUS_SYSTEM_BUS_ADDRESS"), !address.isEmpty { return address }
        return "unix:path=/var/run/dbus/system_bus_socket"
    }

    private static func isSocket(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }

    /// A path as a D-Bus address value: bytes outside the optionally-escaped set as %XX.
    private static func escaped(_ path: String) -> String {
        var text = ""
        for byte in path.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if c.isASCII && (c.isLetter || c.isNumber || "-_/.\\*".contains(c)) {
                text.append(c)
            } else {
                text += "%" + String(byte, radix: 16, uppercase: true).leftPadded
            }
        }
        return text
    }
}

private extension String {
    var leftPadded: String { count < 2 ? "0" + self : self }
}
