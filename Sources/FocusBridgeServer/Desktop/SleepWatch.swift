import FocusBridgeDBus

/// Re-evaluates schedules when the machine wakes (logind's `PrepareForSleep(false)` on the
/// system bus), so a summary missed while asleep is caught up at once. Without a system bus (as
/// in containers) there is nothing to follow, and the wall-clock timer still fires late.
enum SleepWatch {
    static func follow(on system: VariantConnection?, _ woke: @escaping () -> Void) {
        guard let bus = system else { return }
        bus.subscribe(sender: "org.freedesktop.login1", interface: "org.freedesktop.login1.Manager",
                      member: "PrepareForSleep", path: "/org/freedesktop/login1") { signal in
            if signal.parameters.child(0).bool == false { woke() }
        }
    }
}
