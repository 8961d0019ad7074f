import FocusBridgeSystem
#if canImport(Glibc)
import Glibc
#endif

/// Whether the session bus can be found without autolaunching: GLib would otherwise start a
/// new bus through X11 (with `DISPLAY` set) that no application uses.
public enum SessionBusAddress {
    /// `DBUS_SESSION_BUS_ADDRESS` is set, or the systemd user bus is at `$XDG_RUNTIME_DIR/bus`.
    public static func isKnown(_ environment: [String: String] = Environment.all) -> Bool {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return true }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        var info = stat()
        return stat(runtime + "/bus", &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK
    }
}
