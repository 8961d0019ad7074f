#if canImport(Glibc)
import Glibc
#endif

/// ISO 8601 UTC timestamps with milliseconds (`2026-11-21T21:00:00.123Z`), the one format of
/// every time in FocusBridge's JSON. Written by hand: Foundation's ISO8601DateFormatter pulls
/// in ICU, which alone would double the daemon's resident memory.
public enum Timestamp {
    /// Total: an instant before year 1 or after year 9999 (or not finite) is written as the
    /// nearest one the format can say, NaN as 1970; it never traps.
    public static func string(_ date: Instant) -> String {
        let raw = date.timeIntervalSince1970
        let clamped = raw.isNaN ? 0 : min(max(raw, Self.firstSecond), Self.lastSecond)
        let milliseconds = Int64((clamped * 1000).rounded(.down))
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let millis = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }

    /// 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the four-digit years.
    static let firstSecond: Double = -62_135_596_800
    static let lastSecond: Double = 253_402_300_799.999

    /// Reads the format `string` writes (milliseconds optional).
    public static func parse(_ text: String) -> Instant? {
        let characters = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= characters.count else { return nil }
            var value = 0
            for byte in characters[from..<from + count] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard characters.count >= 20, characters[4] == 45, characters[7] == 45, characters[10] == 84,
              characters[13] == 58, characters[16] == 58, characters.last == 90,
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2) else { return nil }
        var millis = 0
        if characters.count == 24 {
            guard characters[19] == 46, let value = number(20, 3) else { return nil }
            millis = value
        } else if characters.count != 20 {
            return nil
        }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        return Instant(timeIntervalSince1970: Double(seconds) + Double(millis) / 1000)
    }
}
