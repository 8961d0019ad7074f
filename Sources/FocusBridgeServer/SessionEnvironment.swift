import Foundation

/// What the session must give focus-bridge before it starts.
enum SessionEnvironment {
    /// Without `DBUS_SESSION_BUS_ADDRESS` (and without the systemd user bus at
    /// `$XDG_RUNTIME_DIR/bus`) GLib would autolaunch a new bus through X11 that no application
    /// uses: the bridge would serve nobody. Refused instead, with one sentence.
    static func checkBusAddress(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            var info = stat()
            if stat(runtime + "/bus", &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK { return }
        }
        throw StartupError("DBUS_SESSION_BUS_ADDRESS is not set and there is no session bus at $XDG_RUNTIME_DIR/bus: "
            + "focus-bridge serves the session bus, so start it inside the session (systemd --user, the session's "
            + "autostart, or dbus-run-session) or run 'make run', which starts a bus of its own")
    }
}
