import FocusBridgeCore
import FocusBridgeTime
import Foundation
import XCTest

final class FocusEngineTests: XCTestCase {
    private let berlin = zone("Europe/Berlin")
    /// For reading the tests' times: Foundation's own Berlin.
    private let foundationBerlin = TimeZone(identifier: "Europe/Berlin")!

    private func date(_ text: String, _ zone: TimeZone? = nil) -> Instant {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone ?? foundationBerlin
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return Instant(timeIntervalSince1970: formatter.date(from: text)!.timeIntervalSince1970)
    }

    private func profile(_ name: String, days: [Weekday] = Weekday.allCases, _ start: String, _ end: String) -> FocusProfile {
        var focus = FocusProfile(name: name)
        focus.schedule = [ScheduleEntry(days: Set(days), start: TimeOfDay(start)!, end: TimeOfDay(end)!)]
        return focus
    }

    private lazy var work = profile("work", days: [.mon, .tue, .wed, .thu, .fri], "09:00", "17:30")
    private lazy var sleep = profile("sleep", "22:30", "07:00")

    func testAWeekOfSchedules() {
        let engine = FocusEngine(focuses: [work, sleep], timeZone: berlin)
        // 2026-11-16 is a Monday.
        let expectations: [(String, String?)] = [
            ("2026-11-16 08:59", nil), ("2026-11-16 09:00", "work"), ("2026-11-16 17:29", "work"),
            ("2026-11-16 17:30", nil), ("2026-11-16 22:29", nil), ("2026-11-16 22:30", "sleep"),
            ("2026-11-17 00:00", "sleep"), ("2026-11-17 06:59", "sleep"), ("2026-11-17 07:00", nil),
            ("2026-11-20 12:00", "work"), ("2026-11-21 12:00", nil), ("2026-11-22 12:00", nil),
            ("2026-11-22 23:00", "sleep"), ("2026-11-23 03:00", "sleep"), ("2026-11-23 10:00", "work"),
        ]
        for (moment, name) in expectations {
            XCTAssertEqual(engine.active(at: date(moment), manual: nil)?.name, name, moment)
        }
        let night = engine.active(at: date("2026-11-17 01:00"), manual: nil)!
        XCTAssertEqual(night.since, date("2026-11-16 22:30"))
        XCTAssertEqual(night.until, date("2026-11-17 07:00"))
        XCTAssertEqual(night.source, .scheduled)
    }

    func testAnAppAskingForQuietAndALockedScreenTurnDoNotDisturbOn() {
        let engine = FocusEngine(focuses: [work, .doNotDisturb], timeZone: berlin)
        let monday = date("2026-11-23 10:00"), sunday = date("2026-11-22 10:00")
        let quiet = (since: sunday, reason: "asked by org.example.Slides: Presenting")
        let inhibited = engine.active(at: sunday, manual: nil, window: nil, inhibited: quiet)
        XCTAssertEqual(inhibited?.name, "dnd")
        XCTAssertEqual(inhibited?.source, .inhibit)
        XCTAssertEqual(inhibited?.reason, quiet.reason)
        XCTAssertEqual(engine.active(at: monday, manual: nil, window: nil, inhibited: quiet)?.source, .inhibit,
                       "an app asking for quiet wins over a schedule")
        let byHand = ManualFocus(state: .on("work"), since: sunday, until: nil)
        XCTAssertEqual(engine.active(at: sunday, manual: byHand, window: nil, inhibited: quiet)?.source, .manual,
                       "a Focus turned on by hand wins")

        XCTAssertEqual(engine.active(at: sunday, manual: nil, window: nil, lockedSince: sunday)?.source, .locked)
        XCTAssertEqual(engine.active(at: monday, manual: nil, window: nil, lockedSince: sunday)?.name, "work",
                       "a Focus that is on decides alone while the screen is locked")
        XCTAssertNil(engine.active(at: sunday, manual: nil, window: nil))
    }

    func testBoundariesAreTheNextStartOrEnd() {
        let engine = FocusEngine(focuses: [work, sleep], timeZone: berlin)
        XCTAssertEqual(engine.nextScheduleBoundary(after: date("2026-11-16 08:00")), date("2026-11-16 09:00"))
        XCTAssertEqual(engine.nextScheduleBoundary(after: date("2026-11-16 09:00")), date("2026-11-16 17:30"))
        XCTAssertEqual(engine.nextScheduleBoundary(after: date("2026-11-21 08:00")), date("2026-11-21 22:30"))
    }

    func testSpringForwardInBerlin() {
        // 2026-03-29: clocks go from 02:00 to 03:00.
        let night = profile("night", "01:00", "03:30")
        let engine = FocusEngine(focuses: [night], timeZone: berlin)
        let start = date("2026-03-29 01:00")
        let end = engine.active(at: start.addingTimeInterval(60), manual: nil)!.until!
        XCTAssertEqual(end.timeIntervalSince(start), 1.5 * 3600, "01:00 to 03:30 is an hour and a half that night")
        let skipped = profile("skipped", "02:30", "04:00")
        let gapEngine = FocusEngine(focuses: [skipped], timeZone: berlin)
        let startsAt = gapEngine.nextScheduleBoundary(after: date("2026-03-29 00:00"))!
        XCTAssertEqual(startsAt, date("2026-03-29 03:30"), "a start in the skipped hour moves forward by the gap")
        XCTAssertNotNil(gapEngine.active(at: date("2026-03-29 03:45"), manual: nil))
    }

    func testFallBackInBerlin() {
        // 2026-10-25: clocks go from 03:00 back to 02:00.
        let night = profile("night", "01:00", "04:00")
        let engine = FocusEngine(focuses: [night], timeZone: berlin)
        let active = engine.active(at: date("2026-10-25 01:30"), manual: nil)!
        XCTAssertEqual(active.until!.timeIntervalSince(active.since), 4 * 3600, "three wall hours last four that night")
        XCTAssertEqual(engine.nextScheduleBoundary(after: date("2026-10-25 00:00")), date("2026-10-25 01:00"))
    }

    func testAClockJumpIsJustAnotherMoment() {
        // The engine keeps no state: after the clock jumps, evaluating again gives the truth.
        let engine = FocusEngine(focuses: [work], timeZone: berlin)
        XCTAssertNil(engine.active(at: date("2026-11-16 08:00"), manual: nil))
        XCTAssertEqual(engine.active(at: date("2026-11-18 11:00"), manual: nil)?.name, "work")
        XCTAssertEqual(engine.nextChange(after: date("2026-11-18 11:00"), manual: nil), date("2026-11-18 17:30"))
    }

    func testManualChangeWinsUntilTheNextBoundary() {
        let engine = FocusEngine(focuses: [work, sleep], timeZone: berlin)
        let off = engine.manualChange(.off, at: date("2026-11-16 10:00"))
        XCTAssertEqual(off.until, date("2026-11-16 17:30"))
        XCTAssertNil(engine.active(at: date("2026-11-16 12:00"), manual: off), "off wins over the schedule")
        XCTAssertNil(engine.active(at: date("2026-11-16 17:30"), manual: off))
        XCTAssertEqual(engine.active(at: date("2026-11-17 09:30"), manual: off)?.name, "work", "the next day the schedule rules")

        let on = engine.manualChange(.on("sleep"), at: date("2026-11-16 12:00"))
        let active = engine.active(at: date("2026-11-16 13:00"), manual: on)!
        XCTAssertEqual(active.name, "sleep")
        XCTAssertEqual(active.source, .manual)
        XCTAssertEqual(active.until, date("2026-11-16 17:30"), "until the next boundary of the schedules")
        XCTAssertEqual(engine.active(at: date("2026-11-16 17:45"), manual: on)?.name, nil)

        let timed = engine.manualChange(.on("sleep"), at: date("2026-11-16 12:00"), duration: 90 * 60)
        XCTAssertEqual(timed.until, date("2026-11-16 13:30"))
        XCTAssertEqual(engine.active(at: date("2026-11-16 13:31"), manual: timed)?.name, "work")
        XCTAssertEqual(engine.nextChange(after: date("2026-11-16 12:00"), manual: timed), date("2026-11-16 13:30"))
    }

    func testWithoutSchedulesAManualFocusStaysOn() {
        let engine = FocusEngine(focuses: [FocusProfile(name: "reading")], timeZone: berlin)
        let on = engine.manualChange(.on("reading"), at: date("2026-11-16 10:00"))
        XCTAssertNil(on.until)
        XCTAssertEqual(engine.active(at: date("2026-12-24 10:00"), manual: on)?.name, "reading")
        XCTAssertNil(engine.nextChange(after: date("2026-11-16 10:00"), manual: on), "nothing to wake up for")
    }

    func testTheBreakThroughMatrix() {
        let app = AppIdentity(key: "Slack", source: .appName)
        var allowApps = FocusProfile(name: "a")
        allowApps.apps = .allowOnly(["slack"])
        var silence = FocusProfile(name: "s")
        silence.apps = .silence(["Games"])
        var people = FocusProfile(name: "p")
        people.people = ["Mum"]
        var strict = FocusProfile(name: "strict")
        strict.timeSensitive = false
        let mum = Communication(person: "mum")
        let stranger = Communication(person: "Bob")
        let cases: [(FocusProfile, InterruptionLevel, Communication?, Bool)] = [
            (strict, .critical, nil, true), (strict, .timeSensitive, nil, false), (strict, .active, nil, false),
            (strict, .passive, nil, false), (FocusProfile(name: "d"), .timeSensitive, nil, true),
            (FocusProfile(name: "d"), .active, nil, false),
            (allowApps, .passive, nil, true), (allowApps, .active, nil, true),
            (silence, .active, nil, true),
            (people, .active, mum, true), (people, .active, stranger, false), (people, .active, nil, false),
            (strict, .active, mum, false),
        ]
        for (focus, level, communication, breaks) in cases {
            XCTAssertEqual(Policy.breakThrough(focus: focus, app: app, level: level, communication: communication) != nil, breaks,
                           "\(focus.name) \(level) \(communication?.person ?? "-")")
        }
        var silenced = FocusProfile(name: "s")
        silenced.apps = .silence(["slack"])
        XCTAssertNil(Policy.breakThrough(focus: silenced, app: app, level: .active, communication: nil))
    }

    func testSummaryTimesAndCatchUp() {
        let schedule = SummarySchedule(times: [TimeOfDay("08:00")!, TimeOfDay("18:00")!], timeZone: berlin)
        XCTAssertEqual(schedule.next(after: date("2026-11-16 07:00")), date("2026-11-16 08:00"))
        XCTAssertEqual(schedule.next(after: date("2026-11-16 08:00")), date("2026-11-16 18:00"))
        XCTAssertEqual(schedule.next(after: date("2026-11-16 19:00")), date("2026-11-17 08:00"))
        // Asleep from 07:00 to 19:00: both times were missed and are caught up.
        XCTAssertEqual(schedule.instants(after: date("2026-11-16 07:00"), through: date("2026-11-16 19:00")),
                       [date("2026-11-16 08:00"), date("2026-11-16 18:00")])
    }

    /// Samoa skipped 2011-12-30 (from UTC−10 to UTC+14): that day's times fall in the gap and
    /// move forward by it, onto the 31st; each summary instant is still given once.
    func testADaySkippedWholeGivesEachSummaryOnce() {
        let apia = zone("Pacific/Apia")
        let schedule = SummarySchedule(times: [TimeOfDay("08:00")!], timeZone: apia)
        let after = Instant(timeIntervalSince1970: 1_325_066_400)  // 2011-12-28 00:00 local (UTC−10)
        let instants = schedule.instants(after: after, through: after + 5 * 86_400)
        XCTAssertEqual(instants, Array(Set(instants)).sorted(), "no instant twice")
        let clock = WallClock(timeZone: apia)
        XCTAssertEqual(instants.map { clock.day(of: $0).day }, [28, 29, 31, 1, 2])
    }

    func testTheDigest() {
        let base = Instant(timeIntervalSince1970: 1_800_000_000)
        func held(_ id: UInt32, _ app: String, relevance: Double = 0, level: InterruptionLevel = .active, age: Double) -> HeldNotification {
            HeldNotification(id: id, reason: .summary, app: app, summary: "s\(id)", body: "", level: level, relevance: relevance,
                             received: base.addingTimeInterval(-age), holders: [Caller(connection: ":1.1")], processID: nil)
        }
        let items = [held(1, "News", age: 50), held(2, "Shop", relevance: 0.9, age: 100), held(3, "News", level: .passive, age: 1),
                     held(4, "Blog", age: 10), held(5, "Shop", age: 20), held(6, "Games", level: .passive, age: 5),
                     held(7, "Games", level: .passive, age: 70)]
        let digest = Digest.summary(of: items)!
        XCTAssertEqual(digest.title, "Notification Summary")
        XCTAssertEqual(digest.items, [2, 4, 5, 1, 3, 6, 7])
        XCTAssertEqual(digest.body, "Shop — s2\nBlog — s4\nShop — s5\nNews — s1\nNews — s3\nand 2 more from 1 app")
        XCTAssertEqual(Digest.afterFocus("Work", items)?.title, "While Work was on")
        XCTAssertNil(Digest.summary(of: []))
        XCTAssertEqual(Digest.summary(of: Array(items.prefix(2)))?.body.contains("more"), false)
    }
}
