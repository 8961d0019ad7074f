import FocusBridgeDBus

/// Re-evaluates schedules when the machine wakes (logind's `PrepareForSleep(false)` on the
/// system bus), so a summary missed while asleep is caught up at once. Without a system bus (as
/// in containers) there is nothing to follow, and the wall-clock timer still fires late.
enum SleepWatch {
    nonisolated(unsafe) private static var system: VariantConnection?

    static func follow(_ woke: @escaping () -> Void) {
        guard let bus = try? VariantConnection.system() else { return }
        system = bus
        bus.subscribe(sender: "org.freedesktop.login1", interface: "org.freedesktop.login1.Manager",
                      member: "PrepareForSleep", path: "/org/freedesktop/login1") { signal in
            if signal.parameters.child(0).bool == false { woke() }
        }
    }
}
