import FocusBridgeTime

/// The times of the scheduled summary, as instants.
public struct SummarySchedule: Sendable {
    public let times: [TimeOfDay]
    public let clock: WallClock

    public init(times: [TimeOfDay], timeZone: TimeZoneRules) {
        self.times = times
        clock = WallClock(timeZone: timeZone)
    }

    /// The summary instants in (`after`, `through`], oldest first, each once (a day the zone
    /// skips whole moves its times onto the next day's).
    public func instants(after: Instant, through: Instant) -> [Instant] {
        guard !times.isEmpty, through > after else { return [] }
        var result: [Instant] = []
        var day = clock.day(of: after)
        let last = clock.day(of: through)
        for _ in 0..<(366 * 2) {
            for time in times {
                let instant = clock.instant(time, on: day)
                if instant > after && instant <= through { result.append(instant) }
            }
            if day == last { break }
            day = clock.day(day, plus: 1)
        }
        var once: [Instant] = []
        for instant in result.sorted() where instant != once.last { once.append(instant) }
        return once
    }

    /// The first summary instant after `date`.
    public func next(after date: Instant) -> Instant? {
        instants(after: date, through: date.addingTimeInterval(2 * 86_400)).first
    }
}
