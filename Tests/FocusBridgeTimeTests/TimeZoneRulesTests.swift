@testable import FocusBridgeTime
import Foundation
import XCTest

/// FocusBridge's own time zones and calendar against Foundation's `TimeZone` and `Calendar`: offsets,
/// local days and times, and local times turned into instants (gaps moved forward, repeated hours
/// the first), over the zones whose rules are odd.
final class TimeZoneRulesTests: XCTestCase {
    static let zones = [
        "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Chatham",
        "America/Sao_Paulo", "Africa/Casablanca", "UTC", "Europe/Dublin", "America/St_Johns", "Pacific/Apia",
        "Antarctica/Troll", "Asia/Tehran", "America/Santiago", "Europe/London", "Asia/Kolkata", "America/Nuuk",
        "Australia/Sydney", "Pacific/Kiritimati", "America/Los_Angeles", "Europe/Moscow", "Etc/GMT+5",
    ]

    /// 1902-01-01 … 2100-12-31: before the first of the 64-bit transitions and long after 2037,
    /// where the footer's rule answers.
    static let first = -2_145_916_800.0, last = 4_133_980_799.0

    private func foundation(_ name: String) throws -> TimeZone {
        try XCTUnwrap(TimeZone(identifier: name), name)
    }

    /// Every transition Foundation knows between 1970 and 2100, and a sample of instants every
    /// 9 days and 7 hours from 1902 on.
    private func instants(_ zone: TimeZone) -> [Double] {
        var result: [Double] = []
        var date = Date(timeIntervalSince1970: 0)
        while let next = zone.nextDaylightSavingTimeTransition(after: date), next.timeIntervalSince1970 < Self.last,
              result.count < 2000 {
            let t = next.timeIntervalSince1970
            result += [t - 1, t, t + 1, t - 3601, t + 3599]
            date = next
        }
        var t = Self.first
        while t < Self.last {
            result.append(t)
            t += 9 * 86_400 + 7 * 3600
        }
        return result
    }

    func testOffsetsAgreeWithFoundation() throws {
        for name in Self.zones {
            let ours = zone(name), theirs = try foundation(name)
            var compared = 0
            for t in instants(theirs) {
                let expected = theirs.secondsFromGMT(for: Date(timeIntervalSince1970: t))
                let got = ours.offset(at: Instant(timeIntervalSince1970: t))
                if got != expected {
                    XCTFail("\(name) at \(t) (\(Date(timeIntervalSince1970: t))): \(got), Foundation \(expected)")
                    break
                }
                compared += 1
            }
            XCTAssertGreaterThan(compared, 7000, name)
        }
    }

    func testLocalDaysAndTimesAgreeWithFoundation() throws {
        for name in Self.zones {
            let clock = WallClock(timeZone: zone(name))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try foundation(name)
            for t in instants(calendar.timeZone) {
                let date = Date(timeIntervalSince1970: t)
                let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
                let local = clock.localTime(of: Instant(timeIntervalSince1970: t))
                let want = [parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!, parts.weekday! - 1]
                let got = [local.day.year, local.day.month, local.day.day, local.hour, local.minute, local.second, local.weekday]
                if got != want {
                    XCTFail("\(name) at \(date): \(got), Foundation \(want)")
                    break
                }
                XCTAssertEqual(clock.weekday(of: local.day).rawValue, parts.weekday!)
            }
        }
    }

    /// Local times on the days of every change and a sample of others, at each quarter hour
    /// around the change: what `Calendar.date(from:)` makes of them, gaps and repeats included.
    func testLocalTimesToInstantsAgreeWithFoundation() throws {
        for name in Self.zones {
            let clock = WallClock(timeZone: zone(name))
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = try foundation(name)
            // The days of the changes, and one day in ten of the sample.
            var days: Set<WallClock.Day> = []
            for (index, t) in instants(calendar.timeZone).enumerated() {
                let day = clock.day(of: Instant(timeIntervalSince1970: t))
                if index % 10 == 0 || clock.day(of: Instant(timeIntervalSince1970: t + 86_400)) != clock.day(day, plus: 1)
                    || clock.localTime(of: Instant(timeIntervalSince1970: t)).hour != clock.localTime(of: Instant(timeIntervalSince1970: t + 86_400)).hour {
                    days.insert(day)
                }
            }
            var compared = 0
            for day in days.sorted(by: { ($0.year, $0.month, $0.day) < ($1.year, $1.month, $1.day) }) {
                for minutes in stride(from: 0, to: 24 * 60, by: 15) {
                    let time = TimeOfDay(hour: minutes / 60, minute: minutes % 60)!
                    let components = DateComponents(year: day.year, month: day.month, day: day.day,
                                                    hour: time.hour, minute: time.minute)
                    guard let expected = calendar.date(from: components) else { continue }
                    let got = clock.instant(time, on: day)
                    if got.timeIntervalSince1970 != expected.timeIntervalSince1970 {
                        XCTFail("\(name) \(day) \(time): \(got.timeIntervalSince1970), Foundation \(expected.timeIntervalSince1970)")
                        return
                    }
                    compared += 1
                }
            }
            XCTAssertGreaterThan(compared, 10_000, name)
        }
    }

    func testDayArithmeticAgreesWithFoundation() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let clock = WallClock(timeZone: .utc)
        var day = clock.day(of: Instant(timeIntervalSince1970: Self.first))
        var date = Date(timeIntervalSince1970: Self.first + 43_200)
        for step in [1, 1, 27, 365, 1461, -3, 400, 29, 31, 10_000, -20_000, 146_097] {
            day = clock.day(day, plus: step)
            date = calendar.date(byAdding: .day, value: step, to: date)!
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            XCTAssertEqual([day.year, day.month, day.day], [parts.year!, parts.month!, parts.day!])
        }
    }

    /// The skipped and repeated hours of WallClock's doc comment, said out loud in Berlin.
    func testGapsMoveForwardAndRepeatsTakeTheFirst() {
        let clock = WallClock(timeZone: zone("Europe/Berlin"))
        let spring = clock.day(of: Instant(timeIntervalSince1970: 1_774_749_600))  // 2026-03-29
        XCTAssertEqual(clock.instant(TimeOfDay("02:30")!, on: spring).timeIntervalSince1970, 1_774_747_800, "03:30 CEST")
        let autumn = clock.day(of: Instant(timeIntervalSince1970: 1_792_900_000))  // 2026-10-25
        XCTAssertEqual(clock.instant(TimeOfDay("02:30")!, on: autumn).timeIntervalSince1970, 1_792_888_200, "02:30 CEST, not CET")
        // Lord Howe's half hour, Chatham's 45 minutes: the gap is theirs, not an hour.
        let howe = WallClock(timeZone: zone("Australia/Lord_Howe"))
        let howeDay = howe.day(of: Instant(timeIntervalSince1970: 1_791_040_000))  // 2026-10-04, 02:00 → 02:30
        XCTAssertEqual(howe.localTime(of: howe.instant(TimeOfDay("02:15")!, on: howeDay)).minute, 45)
    }

    /// Past 2037 the 64-bit data ends and the footer's rule answers; the same rule parsed from
    /// text says the same, and so does glibc given it as `TZ`.
    func testFooterRuleAfterTheLastTransition() throws {
        let berlin = zone("Europe/Berlin")
        XCTAssertEqual(berlin.rule, try PosixTimeZone("CET-1CEST,M3.5.0,M10.5.0/3"))
        let rule = TimeZoneRules(identifier: "rule", rule: try PosixTimeZone("CET-1CEST,M3.5.0,M10.5.0/3"))
        var t = 2_200_000_000.0
        while t < 7_000_000_000 {
            XCTAssertEqual(berlin.offset(at: Instant(timeIntervalSince1970: t)), rule.offset(at: Instant(timeIntervalSince1970: t)))
            t += 86_400 * 5 + 1234
        }
        // 2100-03-28 01:00 UTC: summer time begins (the last Sunday of March 2100 is the 28th).
        XCTAssertEqual(berlin.offset(at: Instant(timeIntervalSince1970: 4_109_878_799)), 3600)
        XCTAssertEqual(berlin.offset(at: Instant(timeIntervalSince1970: 4_109_878_800)), 7200)
    }

    /// POSIX rules in each form, against glibc's reading of the same `TZ` (from 1971: glibc
    /// computes the rule of any year before as that of 1970).
    func testPosixRulesAgreeWithGlibc() throws {
        let rules = [
            "CET-1CEST,M3.5.0,M10.5.0/3", "EST5EDT,M3.2.0,M11.1.0", "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
            "IST-1GMT0,M10.5.0,M3.5.0/1", "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", "AAA3BBB,J60/2,300/3",
            "NZST-12NZDT,M9.5.0,M4.1.0/3", "<+0545>-5:45", "UTC0", "XXX-3:30YYY-4:30,M3.5.5/24,M10.5.5/1",
        ]
        // Without a rule, the United States' since 2007 (glibc takes its posixrules file instead).
        XCTAssertEqual(try PosixTimeZone("ABC8DEF"), try PosixTimeZone("ABC8DEF7,M3.2.0/2,M11.1.0/2"))
        let saved = getenv("TZ").map { String(cString: $0) }
        defer { if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }; tzset() }
        for text in rules {
            let ours = TimeZoneRules(identifier: text, rule: try PosixTimeZone(text))
            setenv("TZ", text, 1)
            tzset()
            var t: Int64 = 40_000_000
            while t < 6_000_000_000 {
                var seconds = time_t(t)
                var parts = tm()
                localtime_r(&seconds, &parts)
                if Int(parts.tm_gmtoff) != ours.offset(at: Instant(timeIntervalSince1970: Double(t))) {
                    XCTFail("\(text) at \(t): \(ours.offset(at: Instant(timeIntervalSince1970: Double(t)))), glibc \(parts.tm_gmtoff)")
                    break
                }
                t += 86_400 * 3 + 3_611
            }
        }
    }

    /// RFC 8536 §3.3.1: DST all year when it starts on January 1 at 00:00 and ends on December 31
    /// at 24:00 plus the difference. (glibc shows standard time in the first hours of each UTC
    /// year for these: it computes the rule of the year UTC is in.)
    func testDaylightSavingAllYear() throws {
        for text in ["EST5EDT4,0/0,J365/25", "WART4WARST,J1/0,J365/25"] {
            let rules = TimeZoneRules(identifier: text, rule: try PosixTimeZone(text))
            let daylight = try XCTUnwrap(rules.rule?.daylight).offset
            var t = 0.0
            while t < 5_000_000_000 {
                XCTAssertEqual(rules.offset(at: Instant(timeIntervalSince1970: t)), Int(daylight), "\(text) at \(t)")
                t += 3600 * 7 + 13
            }
        }
    }

    func testMalformedRulesAreErrors() {
        for text in ["", "CET", "CE-1", "CET-1CEST,M3.5.0", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.6.0,M10.5.0",
                     "CET-1CEST,M3.5.7,M10.5.0", "CET-25", "CET-1CEST,J0,J365", "CET-1CEST,366,1", "<AB>1", "<ABC1",
                     "CET-1CEST,M3.5.0/168,M10.5.0", "CET-1:60", "CET-1CEST,M3.5.0,M10.5.0/3x", String(repeating: "A", count: 300)] {
            XCTAssertThrowsError(try PosixTimeZone(text), text)
        }
    }

    /// A TZif file cut anywhere, or with any one byte of its header changed, is read or refused,
    /// never trapped on; garbage is refused.
    func testMalformedTZifIsAnErrorNeverATrap() throws {
        let bytes = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: "/usr/share/zoneinfo/America/New_York")))
        for length in 0..<bytes.count {
            XCTAssertThrowsError(try TimeZoneRules(tzif: Array(bytes[0..<length]), identifier: "cut"), "\(length)")
        }
        for index in 0..<min(200, bytes.count) {
            for value: UInt8 in [0, 1, 0x7F, 0x80, 0xFF] {
                var changed = bytes
                changed[index] = value
                if let zone = try? TimeZoneRules(tzif: changed, identifier: "changed") {
                    _ = zone.offset(at: Instant(timeIntervalSince1970: 1_800_000_000))
                    _ = WallClock(timeZone: zone).instant(TimeOfDay("02:30")!, on: WallClock(timeZone: zone).day(of: .now))
                }
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let garbage = (0..<Int.random(in: 0...400, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            XCTAssertThrowsError(try TimeZoneRules(tzif: Array("TZif2".utf8) + garbage, identifier: "garbage"))
        }
        XCTAssertThrowsError(try TimeZoneRules(tzif: [UInt8](repeating: 0, count: TimeZoneRules.maxTZifBytes + 1), identifier: "big"))
    }

    /// A version 1 file (32-bit times only, no footer): the first block of a real file alone.
    func testVersionOneFiles() throws {
        let bytes = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: "/usr/share/zoneinfo/Europe/Berlin")))
        func count(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        let (isut, isstd, leap, time, type, chars) = (count(20), count(24), count(28), count(32), count(36), count(40))
        let size = 44 + time * 5 + type * 6 + chars + leap * 8 + isstd + isut
        var v1 = Array(bytes[0..<size])
        v1[4] = 0
        let old = try TimeZoneRules(tzif: v1, identifier: "v1"), new = zone("Europe/Berlin")
        XCTAssertNil(old.rule)
        var t = -2_000_000_000.0
        while t < 2_147_000_000 {
            XCTAssertEqual(old.offset(at: Instant(timeIntervalSince1970: t)), new.offset(at: Instant(timeIntervalSince1970: t)))
            t += 86_400 * 11
        }
    }

    func testExtremeInstantsDoNotTrap() {
        let clock = WallClock(timeZone: zone("Europe/Berlin"))
        for t in [Double.nan, .infinity, -.infinity, 1e300, -1e300, Double(Int64.max), 9e15] {
            let day = clock.day(of: Instant(timeIntervalSince1970: t))
            _ = clock.instant(TimeOfDay("12:00")!, on: clock.day(day, plus: .max))
            _ = clock.weekday(of: day)
        }
        XCTAssertEqual(Gregorian.civil(days: 0).year, 1970)
        XCTAssertEqual(Gregorian.days(year: 2000, month: 14, day: 1), Gregorian.days(year: 2001, month: 2, day: 1))
        XCTAssertEqual(Gregorian.days(year: 2000, month: -1, day: 1), Gregorian.days(year: 1999, month: 11, day: 1))
    }
}
