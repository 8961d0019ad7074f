import FocusBridgeTime

/// The times FocusBridge accepts from outside (a command line, a D-Bus call, the state file read
/// back). Everything past these bounds is refused at the door or discarded when read, so no
/// later arithmetic (calendars, timers, `Int64` milliseconds) ever sees an absurd value.
public enum TimeBounds {
    /// The longest manual Focus: `--for` and `FocusOn`'s duration (a leap year, 366 days).
    public static let longestDuration: Double = 366 * 86_400
    /// 1970-01-01T00:00:00Z, the earliest instant a stored time may hold.
    public static let earliest = Instant(timeIntervalSince1970: 0)
    /// 9999-12-31T23:59:59Z, the last instant the JSON format's four-digit year can say.
    public static let latest = Instant(timeIntervalSince1970: 253_402_300_799)

    /// Whether `date` is a finite instant between `earliest` and `latest`.
    public static func contains(_ date: Instant) -> Bool {
        let seconds = date.timeIntervalSince1970
        return seconds.isFinite && date >= earliest && date <= latest
    }

    /// Whether `seconds` is a duration a manual Focus may last: finite, positive, at most 366 days.
    public static func isAcceptableDuration(_ seconds: Double) -> Bool {
        seconds.isFinite && seconds > 0 && seconds <= longestDuration
    }

    /// A stored instant in seconds since 1970 (`summary-checked`), or nil when it is not a
    /// number or out of bounds.
    public static func storedInstant(_ text: String) -> Instant? {
        guard let seconds = Double(text), seconds.isFinite else { return nil }
        let date = Instant(timeIntervalSince1970: seconds)
        return contains(date) ? date : nil
    }
}
