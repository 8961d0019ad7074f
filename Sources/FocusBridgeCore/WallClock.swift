import Foundation

/// Local wall-clock arithmetic in an injected time zone: turning "Monday 09:00" into an instant,
/// across DST changes. A local time that does not exist (in the hour skipped in spring) moves
/// forward by the gap (02:30 → 03:30); one that exists twice (in the hour repeated in autumn) is
/// its first occurrence.
public struct WallClock: Sendable {
    public let timeZone: TimeZone
    private let calendar: Calendar

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// A local calendar day.
    public struct Day: Hashable, Sendable {
        public let year: Int
        public let month: Int
        public let day: Int
    }

    public func day(of date: Instant) -> Day {
        let parts = calendar.dateComponents([.year, .month, .day], from: date.date)
        return Day(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    public func weekday(of day: Day) -> Weekday {
        Weekday(rawValue: calendar.component(.weekday, from: noon(of: day).date))!
    }

    /// The day `offset` days after `day`.
    public func day(_ day: Day, plus offset: Int) -> Day {
        self.day(of: Instant(calendar.date(byAdding: .day, value: offset, to: noon(of: day).date)!))
    }

    /// The instant of `time` on `day`, local time.
    public func instant(_ time: TimeOfDay, on day: Day) -> Instant {
        Instant(calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day,
                                                   hour: time.hour, minute: time.minute))!)
    }

    private func noon(of day: Day) -> Instant {
        Instant(calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day, hour: 12))!)
    }
}
