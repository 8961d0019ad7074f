import FocusBridgeDBus
import FocusBridgeSystem

/// What the session must give focus-bridge before it starts.
enum SessionEnvironment {
    /// Without a known session bus GLib would autolaunch a new one through X11 that no
    /// application uses: the bridge would serve nobody. Refused instead, with one sentence.
    static func checkBusAddress(_ environment: [String: String] = Environment.all) throws {
        guard !SessionBusAddress.isKnown(environment) else { return }
        throw StartupError("DBUS_SESSION_BUS_ADDRESS is not set and there is no session bus at $XDG_RUNTIME_DIR/bus: "
            + "focus-bridge serves the session bus, so start it inside the session (systemd --user, the session's "
            + "autostart, or dbus-run-session) or run 'make run', which starts a bus of its own")
    }
}
