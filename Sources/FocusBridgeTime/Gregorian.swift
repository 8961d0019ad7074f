/// The proleptic Gregorian calendar on day numbers (days since 1970-01-01): what Core needs of a
/// calendar, without Foundation's `Calendar` (its code and ICU would be most of the daemon's
/// resident memory). Howard Hinnant's `days_from_civil` algorithms: exact, no tables, no loops.
///
/// Total: a year beyond ±10,000,000 is taken as that bound, a month outside 1...12 rolls into the
/// years around it; nothing traps.
public enum Gregorian {
    public static let maxYear = 10_000_000

    /// The day number of `year`-`month`-`day`; a `day` past the month's end counts on into the next.
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let month0 = month - 1
        let yearCarry = month0 >= 0 ? month0 / 12 : (month0 - 11) / 12
        var y = min(max(year, -maxYear), maxYear) + yearCarry
        let m = month0 - yearCarry * 12 + 1
        let d = min(max(day, -400_000_000), 400_000_000)
        if m <= 2 { y -= 1 }
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of day number `days` (clamped to ±4,000,000,000 days, about 11 million years).
    public static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = min(max(days, -4_000_000_000), 4_000_000_000) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday).
    public static func weekday(days: Int) -> Int {
        let remainder = (days + 4) % 7
        return remainder < 0 ? remainder + 7 : remainder
    }

    public static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    public static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `value` divided by `divisor` rounded toward minus infinity (a day of a negative second).
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
