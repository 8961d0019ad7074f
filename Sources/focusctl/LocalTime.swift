import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeTime

/// Local times for people (JSON carries UTC timestamps), in the zone `TZ` or `/etc/localtime`
/// names, as the daemon reads it: no Foundation, whose calendar brings ICU's 34 MB of data into
/// focusctl.
enum LocalTime {
    private static let wallClock = WallClock(timeZone: SystemTimeZone.current())
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// `17:30` today, `Sat 08:00` on another day; with `always`, the full date and time
    /// (`2025-05-20 17:30:05`).
    static func string(_ instant: Instant, always: Bool = false, now: Instant = Instant()) -> String {
        // A time from the daemon is not trusted: one no calendar can say is written as "?".
        let raw = instant.timeIntervalSince1970
        guard raw.isFinite, abs(raw) < 253_402_300_800 else { return "?" }
        let local = wallClock.localTime(of: instant)
        let clock = pad(local.hour) + ":" + pad(local.minute)
        if always {
            return pad(local.day.year, width: 4) + "-" + pad(local.day.month) + "-" + pad(local.day.day)
                + " " + clock + ":" + pad(local.second)
        }
        return local.day == wallClock.day(of: now) ? clock : weekdays[local.weekday] + " " + clock
    }

    private static func pad(_ value: Int, width: Int = 2) -> String { String.zeroPadded(value, width: width) }
}
