/// How long a snooze lasts (focusctl snooze, Control1's `Snooze`, the `snooze-hour` quick
/// action): the bounds said once, for focusctl and the bridge alike.
public enum SnoozeLength {
    /// What `focusctl snooze` and the quick action give when no length is asked for.
    public static let standard: Double = 3600
    public static let shortest: Double = 1
    /// A week, as the longest mute.
    public static let longest: Double = 7 * 86_400

    /// Why `seconds` is no snooze's length (one sentence without its end); nil when it is one.
    public static func problem(_ seconds: Double) -> String? {
        seconds.isFinite && seconds >= shortest && seconds <= longest ? nil : "a snooze lasts from one second to a week (7d)"
    }
}
