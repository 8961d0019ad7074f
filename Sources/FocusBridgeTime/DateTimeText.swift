/// The ISO 8601 date and times `focusctl explain --at` takes: `2026-11-21T21:00:00` (local time),
/// with a fraction of a second (`.5`) and a zone (`Z`, `+01:00`, `+0100`, `+01`) optional.
/// The forms Foundation's `ISO8601DateFormatter` reads, checked strictly:
/// a month, day or time that does not exist, or anything after the zone, is not a time.
public enum DateTimeText {
    /// The instant `text` says; a local time in the zone of `clock` (a skipped one moves forward
    /// by the gap, a repeated one is the first). Nil when it is not of that form.
    public static func instant(_ text: String, clock: WallClock) -> Instant? {
        let bytes = Array(text.utf8.prefix(64))
        guard bytes.count < 64 else { return nil }
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }
        func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), take(UInt8(ascii: "-")), let month = digits(2), take(UInt8(ascii: "-")),
              let day = digits(2), take(UInt8(ascii: "T")), let hour = digits(2), take(UInt8(ascii: ":")),
              let minute = digits(2), take(UInt8(ascii: ":")), let second = digits(2),
              (1...12).contains(month), (1...Gregorian.daysInMonth(month, year: year)).contains(day),
              hour <= 23, minute <= 59, second <= 59 else { return nil }
        var fraction = 0.0
        if take(UInt8(ascii: ".")) || take(UInt8(ascii: ",")) {
            var scale = 0.1, count = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                count += 1
                index += 1
            }
            guard (1...9).contains(count) else { return nil }
        }
        let date = WallClock.Day(days: Gregorian.days(year: year, month: month, day: day))
        if index == bytes.count {
            return clock.instant(day: date, hour: hour, minute: minute, second: Double(second) + fraction)
        }
        var offset = 0
        if take(UInt8(ascii: "Z")) {
            offset = 0
        } else {
            let sign: Int
            if take(UInt8(ascii: "+")) { sign = 1 } else if take(UInt8(ascii: "-")) { sign = -1 } else { return nil }
            guard let hours = digits(2), hours <= 23 else { return nil }
            var minutes = 0
            if index < bytes.count {
                _ = take(UInt8(ascii: ":"))
                guard let value = digits(2), value <= 59 else { return nil }
                minutes = value
            }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard index == bytes.count else { return nil }
        let local = Double(Gregorian.days(year: year, month: month, day: day)) * 86_400
            + Double(hour * 3600 + minute * 60 + second) + fraction
        return Instant(timeIntervalSince1970: local - Double(offset))
    }
}
