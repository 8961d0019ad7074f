/// A time zone as its offsets from UTC over time: the transitions of a TZif file (`TZif.swift`)
/// and the POSIX rule after the last of them, a POSIX rule alone, or a fixed offset.
///
/// Our own instead of Foundation's `TimeZone` (Foundation and ICU would be most of the
/// daemon's memory). Core only computes with it; reading `/usr/share/zoneinfo` and `TZ` is the
/// caller's (`SystemTimeZone` in FocusBridgeConfig). Instants are whole seconds since 1970 UTC here,
/// clamped to ±2^52 (about 140 million years) so that nothing overflows.
public struct TimeZoneRules: Equatable, Sendable {
    /// The name it was loaded by (`Europe/Berlin`, `UTC`, a POSIX rule's text).
    public let identifier: String
    /// Transition instants, ascending; `offsets[i]` holds from `transitions[i]` on.
    let transitions: [Int64]
    let offsets: [Int32]
    /// The offset before the first transition (and always, when there are none and no rule).
    let initialOffset: Int32
    /// The rule after the last transition (for all time when there are none).
    let rule: PosixTimeZone?
    /// The largest distance of any offset from UTC: how far a local time can lie from its instant.
    let largestOffset: Int64

    /// The offset in effect over a span of time, `start` inclusive, `end` exclusive.
    struct Period: Equatable {
        let offset: Int32
        let start: Int64
        let end: Int64
    }

    public static let utc = TimeZoneRules(identifier: "UTC", fixedOffset: 0)

    public init(identifier: String, fixedOffset seconds: Int32) {
        self.init(identifier: identifier, transitions: [], offsets: [], initialOffset: seconds, rule: nil)
    }

    public init(identifier: String, rule: PosixTimeZone) {
        self.init(identifier: identifier, transitions: [], offsets: [], initialOffset: rule.standardOffset, rule: rule)
    }

    init(identifier: String, transitions: [Int64], offsets: [Int32], initialOffset: Int32, rule: PosixTimeZone?) {
        self.identifier = identifier
        self.transitions = transitions
        self.offsets = offsets
        self.initialOffset = initialOffset
        self.rule = rule
        largestOffset = max(offsets.map { abs(Int64($0)) }.max() ?? 0, abs(Int64(initialOffset)), rule?.largestOffset ?? 0)
    }

    static let secondsBound: Int64 = 1 << 52

    /// The whole second of `instant` (rounded down), within the bound; NaN is 1970.
    static func seconds(_ instant: Instant) -> Int64 {
        let raw = instant.timeIntervalSince1970
        guard !raw.isNaN else { return 0 }
        let bound = Double(secondsBound)
        return Int64(min(max(raw, -bound), bound).rounded(.down))
    }

    /// Seconds east of UTC at `instant` (Berlin: 3600 in winter, 7200 in summer).
    public func offset(at instant: Instant) -> Int { Int(period(containing: Self.seconds(instant)).offset) }

    func period(containing seconds: Int64) -> Period {
        let seconds = min(max(seconds, -Self.secondsBound), Self.secondsBound)
        guard let last = transitions.last else {
            return rule?.period(containing: seconds) ?? Period(offset: initialOffset, start: .min, end: .max)
        }
        if seconds >= last, let rule {
            let period = rule.period(containing: seconds)
            return Period(offset: period.offset, start: max(period.start, last), end: period.end)
        }
        // The last transition at or before `seconds`.
        var low = 0, high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= seconds { low = middle + 1 } else { high = middle }
        }
        let index = low - 1
        if index < 0 { return Period(offset: initialOffset, start: .min, end: transitions[0]) }
        let end = index + 1 < transitions.count ? transitions[index + 1] : Int64.max
        return Period(offset: offsets[index], start: transitions[index], end: end)
    }

    /// The instant of a local time given as seconds since 1970-01-01 00:00 local. A local time the
    /// zone skips (the hour lost in spring) moves forward by the gap, as if still in the offset
    /// before it; one it repeats (the hour gained in autumn) is its first occurrence.
    func instant(local: Int64) -> Int64 {
        let local = min(max(local, -Self.secondsBound), Self.secondsBound)
        let reach = largestOffset + 1
        var periods: [Period] = []
        var period = self.period(containing: local - reach)
        // Each offset that could explain `local`; a zone changes a few times a day at most.
        while periods.count < 64 {
            periods.append(period)
            guard period.end <= local + reach else { break }
            period = self.period(containing: period.end)
        }
        var first: Int64?
        for period in periods {
            let candidate = local - Int64(period.offset)
            if candidate >= period.start && candidate < period.end { first = min(first ?? candidate, candidate) }
        }
        if let first { return first }
        for (before, after) in zip(periods, periods.dropFirst()) {
            let change = before.end
            if local >= change + Int64(before.offset) && local < change + Int64(after.offset) {
                return local - Int64(before.offset)
            }
        }
        return local - Int64(self.period(containing: local).offset)
    }
}
