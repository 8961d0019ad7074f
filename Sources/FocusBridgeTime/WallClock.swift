/// Local wall-clock arithmetic in an injected time zone: turning "Monday 09:00" into an instant,
/// across DST changes. A local time that does not exist (in the hour skipped in spring) moves
/// forward by the gap (02:30 → 03:30); one that exists twice (in the hour repeated in autumn) is
/// its first occurrence.
public struct WallClock: Sendable {
    public let timeZone: TimeZoneRules

    public init(timeZone: TimeZoneRules) {
        self.timeZone = timeZone
    }

    /// A local calendar day.
    public struct Day: Hashable, Sendable {
        public let year: Int
        public let month: Int
        public let day: Int

        init(days: Int) {
            (year, month, day) = Gregorian.civil(days: days)
        }

        /// Its day number (days since 1970-01-01).
        var days: Int { Gregorian.days(year: year, month: month, day: day) }
    }

    /// A local date and time of day, to the second.
    public struct LocalTime: Equatable, Sendable {
        public let day: Day
        public let hour: Int
        public let minute: Int
        public let second: Int
        /// 0 = Sunday … 6 = Saturday.
        public var weekday: Int { Gregorian.weekday(days: day.days) }
    }

    public func day(of date: Instant) -> Day { localTime(of: date).day }

    /// The local date and time at `date`.
    public func localTime(of date: Instant) -> LocalTime {
        let seconds = TimeZoneRules.seconds(date)
        let local = seconds + Int64(timeZone.period(containing: seconds).offset)
        let days = Gregorian.floorDivide(local, 86_400)
        let inDay = Int(local - days * 86_400)
        return LocalTime(day: Day(days: Int(days)), hour: inDay / 3600, minute: inDay / 60 % 60, second: inDay % 60)
    }

    public func weekday(of day: Day) -> Weekday {
        Weekday(rawValue: Gregorian.weekday(days: day.days) + 1)!
    }

    /// The day `offset` days after `day`.
    public func day(_ day: Day, plus offset: Int) -> Day {
        Day(days: day.days + min(max(offset, -1_000_000_000), 1_000_000_000))
    }

    /// The instant of `time` on `day`, local time.
    public func instant(_ time: TimeOfDay, on day: Day) -> Instant {
        instant(day: day, hour: time.hour, minute: time.minute, second: 0)
    }

    /// The instant of a local date and time (`second` may be fractional).
    func instant(day: Day, hour: Int, minute: Int, second: Double) -> Instant {
        let whole = second.rounded(.down)
        let local = Int64(day.days) * 86_400 + Int64(hour * 3600 + minute * 60) + Int64(whole)
        return Instant(timeIntervalSince1970: Double(timeZone.instant(local: local)) + (second - whole))
    }
}
