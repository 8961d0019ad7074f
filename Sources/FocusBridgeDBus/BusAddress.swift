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
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "\\"), UInt8(ascii: "*"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
