/// A POSIX `TZ` rule such as `CET-1CEST,M3.5.0,M10.5.0/3`: a standard offset and, optionally, a
/// daylight-saving offset with the yearly days and times it starts and ends. The footer of a TZif
/// file says the zone's rule after its last transition this way (RFC 8536 §3.3, with its
/// extensions: hours −167…167 in rule times, DST all year), and `TZ` may hold one directly.
///
/// Offsets are kept as FocusBridge uses them, seconds east of UTC (POSIX writes them west).
public struct PosixTimeZone: Equatable, Sendable {
    public let standardOffset: Int32
    public let daylight: Daylight?

    public struct Daylight: Equatable, Sendable {
        public let offset: Int32
        public let start: RuleDay
        /// Local standard time of day the change happens, seconds (−167…167 hours).
        public let startTime: Int32
        public let end: RuleDay
        /// Local daylight time of day the change back happens.
        public let endTime: Int32
    }

    /// A day of a year, in the three forms POSIX has.
    public enum RuleDay: Equatable, Sendable {
        /// `Jn`: 1…365, February 29 never counted.
        case julian(Int)
        /// `n`: 0…365, February 29 counted.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday d (0 = Sunday) of week w (1…4, 5 = the last) of month m.
        case monthWeekDay(month: Int, week: Int, weekday: Int)

        /// The day number of this day in `year`.
        func days(in year: Int) -> Int {
            switch self {
            case .julian(let n):
                return Gregorian.days(year: year, month: 1, day: 1) + n - 1 + (Gregorian.isLeap(year) && n >= 60 ? 1 : 0)
            case .zeroBased(let n):
                return Gregorian.days(year: year, month: 1, day: 1) + n
            case .monthWeekDay(let month, let week, let weekday):
                let first = Gregorian.days(year: year, month: month, day: 1)
                var day = (weekday - Gregorian.weekday(days: first) + 7) % 7 + (week - 1) * 7
                if day >= Gregorian.daysInMonth(month, year: year) { day -= 7 }
                return first + day
            }
        }
    }

    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    public init(standardOffset: Int32, daylight: Daylight? = nil) {
        self.standardOffset = standardOffset
        self.daylight = daylight
    }

    /// Parses `text` (at most 256 bytes), the whole of it.
    public init(_ text: String) throws(Invalid) {
        var reader = Reader(bytes: Array(text.utf8.prefix(257)))
        guard reader.bytes.count <= 256 else { throw Invalid(description: "a TZ rule is at most 256 bytes") }
        try reader.name()
        standardOffset = -(try reader.offset(maxHours: 24))
        guard !reader.atEnd else {
            daylight = nil
            return
        }
        try reader.name()
        var daylightOffset = standardOffset + 3600
        if let byte = reader.peek, byte != UInt8(ascii: ",") { daylightOffset = -(try reader.offset(maxHours: 24)) }
        // No rule: the United States' since 2007, as glibc assumes.
        var start = RuleDay.monthWeekDay(month: 3, week: 2, weekday: 0), end = RuleDay.monthWeekDay(month: 11, week: 1, weekday: 0)
        var startTime: Int32 = 7200, endTime: Int32 = 7200
        if !reader.atEnd {
            try reader.expect(UInt8(ascii: ","))
            start = try reader.ruleDay()
            if reader.peek == UInt8(ascii: "/") { reader.index += 1; startTime = try reader.offset(maxHours: 167) }
            try reader.expect(UInt8(ascii: ","))
            end = try reader.ruleDay()
            if reader.peek == UInt8(ascii: "/") { reader.index += 1; endTime = try reader.offset(maxHours: 167) }
        }
        guard reader.atEnd else { throw Invalid(description: "unexpected text after the rule") }
        daylight = Daylight(offset: daylightOffset, start: start, startTime: startTime, end: end, endTime: endTime)
    }

    /// The offset in effect at `seconds` (since 1970 UTC) and the span it holds in: from `start`
    /// (inclusive) to `end` (exclusive), `Int64.min`/`Int64.max` for none. A span may be cut at a
    /// year's edge where the offset does not change; it never spans a change.
    func period(containing seconds: Int64) -> TimeZoneRules.Period {
        guard let daylight else { return TimeZoneRules.Period(offset: standardOffset, start: .min, end: .max) }
        let year = Gregorian.civil(days: Int(Gregorian.floorDivide(seconds, 86_400))).year
        // The changes of five years around it, ordered; at one instant the later kind wins (DST
        // all year ends at the very instant it starts again).
        var changes: [(at: Int64, offset: Int32)] = []
        for year in year - 2...year + 2 {
            let start = Int64(daylight.start.days(in: year)) * 86_400 + Int64(daylight.startTime) - Int64(standardOffset)
            let end = Int64(daylight.end.days(in: year)) * 86_400 + Int64(daylight.endTime) - Int64(daylight.offset)
            changes.append((end, standardOffset))
            changes.append((start, daylight.offset))
        }
        changes.sort { $0.at != $1.at ? $0.at < $1.at : ($0.offset == standardOffset && $1.offset != standardOffset) }
        var kept: [(at: Int64, offset: Int32)] = []
        for change in changes {
            if let last = kept.last, last.at == change.at { kept.removeLast() }
            if let last = kept.last, last.offset == change.offset { continue }
            kept.append(change)
        }
        guard let first = kept.first else { return TimeZoneRules.Period(offset: standardOffset, start: .min, end: .max) }
        if seconds < first.at {
            return TimeZoneRules.Period(offset: first.offset == standardOffset ? daylight.offset : standardOffset,
                                        start: .min, end: first.at)
        }
        var index = 0
        while index + 1 < kept.count, kept[index + 1].at <= seconds { index += 1 }
        return TimeZoneRules.Period(offset: kept[index].offset, start: kept[index].at,
                                    end: index + 1 < kept.count ? kept[index + 1].at : .max)
    }

    /// The largest distance of either offset from UTC.
    var largestOffset: Int64 { max(abs(Int64(standardOffset)), abs(Int64(daylight?.offset ?? 0))) }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index >= bytes.count }
        var peek: UInt8? { atEnd ? nil : bytes[index] }

        mutating func expect(_ byte: UInt8) throws(Invalid) {
            guard peek == byte else { throw Invalid(description: "expected \"\(Character(Unicode.Scalar(byte)))\"") }
            index += 1
        }

        /// `ABC` (letters) or `<+0545>` (letters, digits, signs): at least three.
        mutating func name() throws(Invalid) {
            let start = index
            if peek == UInt8(ascii: "<") {
                index += 1
                while let byte = peek, Self.isLetter(byte) || Self.isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") {
                    index += 1
                }
                guard index - start - 1 >= 3, peek == UInt8(ascii: ">") else { throw Invalid(description: "a zone name in <> is at least three letters, digits or signs") }
                index += 1
            } else {
                while let byte = peek, Self.isLetter(byte) { index += 1 }
                guard index - start >= 3 else { throw Invalid(description: "a zone name is at least three letters") }
            }
        }

        /// `[+-]hh[:mm[:ss]]` as seconds, as written (positive west of Greenwich for an offset).
        mutating func offset(maxHours: Int) throws(Invalid) -> Int32 {
            var sign: Int32 = 1
            if peek == UInt8(ascii: "+") { index += 1 } else if peek == UInt8(ascii: "-") { sign = -1; index += 1 }
            let hours = try number(maxDigits: 3, max: maxHours)
            var minutes = 0, seconds = 0
            if peek == UInt8(ascii: ":") {
                index += 1
                minutes = try number(maxDigits: 2, max: 59)
                if peek == UInt8(ascii: ":") {
                    index += 1
                    seconds = try number(maxDigits: 2, max: 59)
                }
            }
            return sign * Int32(hours * 3600 + minutes * 60 + seconds)
        }

        mutating func ruleDay() throws(Invalid) -> RuleDay {
            if peek == UInt8(ascii: "J") {
                index += 1
                let day = try number(maxDigits: 3, max: 365)
                guard day >= 1 else { throw Invalid(description: "Jn counts from 1") }
                return .julian(day)
            }
            if peek == UInt8(ascii: "M") {
                index += 1
                let month = try number(maxDigits: 2, max: 12)
                try expect(UInt8(ascii: "."))
                let week = try number(maxDigits: 1, max: 5)
                try expect(UInt8(ascii: "."))
                let weekday = try number(maxDigits: 1, max: 6)
                guard month >= 1, week >= 1 else { throw Invalid(description: "Mm.w.d counts months and weeks from 1") }
                return .monthWeekDay(month: month, week: week, weekday: weekday)
            }
            return .zeroBased(try number(maxDigits: 3, max: 365))
        }

        mutating func number(maxDigits: Int, max: Int) throws(Invalid) -> Int {
            var value = 0, digits = 0
            while let byte = peek, Self.isDigit(byte), digits < maxDigits {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            guard digits > 0 else { throw Invalid(description: "expected a number") }
            guard value <= max else { throw Invalid(description: "\(value) is more than \(max)") }
            return value
        }

        static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }
}
