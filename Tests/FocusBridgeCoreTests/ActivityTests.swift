@testable import FocusBridgeCore
import FocusBridgeTime
import XCTest

/// `focusctl report`'s counting and suggestions (focusctl(1), REPORT) on rows made here and a
/// fixed clock: what each row counts as, the local hours across a change of daylight saving
/// time, the bursts, the bound on apps, and each suggestion's threshold on both sides.
final class ActivityTests: XCTestCase {
    /// Monday 2026-11-23 12:00 UTC, the end of every period here.
    private let now = Instant(timeIntervalSince1970: 1_795_435_200)

    /// A row received `seconds` and one more before `now` (the period's end is not in it).
    private func row(_ id: UInt32, _ app: String = "Mail", at seconds: Double, level: InterruptionLevel = .active,
                     decision: DeliveryOutcome = .delivered, closed reason: UInt32? = nil, acted: Bool = false,
                     replayed: Bool = false) -> ActivityRow {
        ActivityRow(id: id, app: app, level: level, decision: decision, received: now.addingTimeInterval(-seconds - 1),
                    closeReason: reason, acted: acted, replayed: replayed)
    }

    /// A week up to `now`, rows added newest first as the store gives them.
    private func tally(_ rows: [ActivityRow], days: Double = 7, zone: TimeZoneRules = .utc) -> ActivityTally {
        var tally = ActivityTally(since: now.addingTimeInterval(-days * 86_400), until: now, timeZone: zone)
        for row in rows.sorted(by: { $0.received > $1.received }) { tally.add(row) }
        return tally
    }

    // MARK: Counting

    func testCountsPerAppAndInAll() {
        let counted = tally([
            row(1, at: 60, closed: 2, acted: true),
            row(2, at: 120, level: .timeSensitive, closed: 1),
            row(3, at: 180, level: .passive, decision: .heldSummary),
            row(4, "Chat", at: 240, closed: 2),
            row(5, "Chat", at: 300, level: .timeSensitive, closed: 3),
            row(4, "Chat", at: 360),                                  // replaced by row 4 above
        ])
        let mail = counted.apps["Mail"]!
        XCTAssertEqual(mail.total, 3)
        XCTAssertEqual(mail.levels, [.active: 1, .timeSensitive: 1, .passive: 1])
        XCTAssertEqual(mail.decisions, [.delivered: 2, .heldSummary: 1])
        XCTAssertEqual(mail.outcomes, [.acted: 1, .expired: 1], "the held one has none")
        XCTAssertEqual(mail.timeSensitive, 1)
        XCTAssertEqual(mail.timeSensitiveOutcomes, [.expired: 1])
        let chat = counted.apps["Chat"]!
        XCTAssertEqual(chat.outcomes, [.dismissed: 1, .closedByApp: 1, .replaced: 1])
        XCTAssertEqual(counted.totals.total, 6)
        XCTAssertEqual(counted.totals.outcomes, [.acted: 1, .expired: 1, .dismissed: 1, .closedByApp: 1, .replaced: 1])
        XCTAssertEqual(counted.totals.byHour[11], 6, "11:54 to 11:59 UTC")
        XCTAssertEqual(counted.ordered.map(\.app), ["Chat", "Mail"], "busiest first, then by name")
        XCTAssertEqual(ActivityCounts.decided(counted.totals.outcomes), 3, "acted, dismissed, expired: not closed by the app or replaced")
    }

    func testThePeriodIncludesItsStartAndNotItsEnd() {
        let counted = tally([row(1, at: -1), row(2, at: 86_399), row(3, at: 86_400), row(4, at: -5)], days: 1)
        XCTAssertEqual(counted.counted, 1)
        XCTAssertEqual(counted.totals.total, 1, "at the start counts; before it and at or after the end do not")
        // A row outside the period still marks its ID: an older row in the period was replaced.
        let replaced = tally([row(7, at: -5), row(7, at: 600)], days: 1)
        XCTAssertEqual(replaced.totals.outcomes, [.replaced: 1])
    }

    func testHoursAreLocalAcrossADaylightSavingChange() {
        // Berlin went from summer time (UTC+2) to winter time (UTC+1) on 2026-10-25 at 01:00 UTC.
        let berlin = zone("Europe/Berlin")
        let change = Instant(timeIntervalSince1970: 1_792_890_000)
        var counted = ActivityTally(since: change.addingTimeInterval(-86_400), until: change.addingTimeInterval(86_400),
                                    timeZone: berlin)
        // 00:30 UTC is 02:30 summer time; 01:30 UTC is 02:30 winter time; 23:00 UTC the day before is 01:00.
        for (id, offset) in [(3, 1800.0), (2, -1800.0), (1, -7200.0)] as [(UInt32, Double)] {
            counted.add(ActivityRow(id: id, app: "Clock", level: .active, decision: .delivered,
                                    received: change.addingTimeInterval(offset)))
        }
        XCTAssertEqual(counted.totals.byHour[2], 2, "02:30 happened twice that night")
        XCTAssertEqual(counted.totals.byHour[1], 1)
        // India, half an hour off the hours of UTC: 11:59 UTC is 17:29 there.
        let india = tally([row(1, at: 60)], zone: zone("Asia/Kolkata"))
        XCTAssertEqual(india.totals.byHour.firstIndex(of: 1), 17)
    }

    func testBursts() {
        // Five within a minute is a burst; five spread over 61 seconds is not; ten in a row are two.
        let one = tally((0..<5).map { (index: Int) -> ActivityRow in row(UInt32(index + 1), at: Double(index) * 15) })
        XCTAssertEqual(one.apps["Mail"]?.bursts, 1)
        let none = tally((0..<5).map { (index: Int) -> ActivityRow in row(UInt32(index + 1), at: Double(index) * 15.25) })
        XCTAssertEqual(none.apps["Mail"]?.bursts, 0)
        let two = tally((0..<10).map { (index: Int) -> ActivityRow in row(UInt32(index + 1), at: Double(index)) })
        XCTAssertEqual(two.apps["Mail"]?.bursts, 2)
        XCTAssertEqual(two.totals.bursts, 2)
        // Apps interleaved do not make each other's bursts.
        let mixed = tally((0..<10).map { (index: Int) -> ActivityRow in
            let app = index % 2 == 0 ? "A" : "B"
            return row(UInt32(index + 1), app, at: Double(index))
        })
        XCTAssertEqual(mixed.apps["A"]?.bursts, 1)
        XCTAssertEqual(mixed.apps["B"]?.bursts, 1)
    }

    func testAppsAreBoundedAndTheRestCountInTheTotals() {
        var counted = ActivityTally(since: now.addingTimeInterval(-86_400), until: now, timeZone: .utc)
        for index in 0..<(ActivityTally.maxApps + 5) {
            counted.add(row(UInt32(index + 1), "app\(index)", at: Double(index)))
        }
        counted.add(row(99_999, "app0", at: 20_000))
        XCTAssertEqual(counted.apps.count, ActivityTally.maxApps)
        XCTAssertEqual(counted.unlisted, 5)
        XCTAssertEqual(counted.apps["app0"]?.total, 2, "an app already counted goes on being counted")
        XCTAssertEqual(counted.totals.total, ActivityTally.maxApps + 6)
    }

    // MARK: Suggestions

    private func suggestions(_ rows: [ActivityRow], summary: Bool = true,
                             current: [String: Activity.Current] = [:]) -> [Activity.Suggestion] {
        Activity.suggestions(for: tally(rows).ordered, days: 7, summaryScheduled: summary) { current[$0] ?? Activity.Current() }
    }

    /// `count` time-sensitive notifications of `app`, `acted` of them acted on, the rest expired.
    private func pages(_ app: String, _ count: Int, acted: Int, from id: UInt32 = 1) -> [ActivityRow] {
        (0..<count).map { (index: Int) -> ActivityRow in
            let wanted = index < acted
            let reason: UInt32 = wanted ? 2 : 1
            return row(id + UInt32(index), app, at: Double(index) * 600, level: .timeSensitive, closed: reason, acted: wanted)
        }
    }

    func testTimeSensitiveOffWhenRarelyActedOnAndNeverFromFewerThanAHandful() {
        let found = suggestions(pages("Pager", 5, acted: 1))
        XCTAssertEqual(found.map(\.kind), [.timeSensitiveOff], "1 of 5 is under a quarter")
        XCTAssertEqual(found.first?.command, "focusctl app Pager time-sensitive off")
        XCTAssertEqual(found.first?.why, "Pager sent 5 Time Sensitive notifications in the last 7 days; you acted on 1 and "
                       + "dismissed or let expire 4: turned off, they arrive as ordinary ones and no longer break through a Focus")
        XCTAssertEqual(suggestions(pages("Pager", 4, acted: 0)), [], "4 is fewer than a handful")
        XCTAssertEqual(suggestions(pages("Pager", 8, acted: 2)), [], "2 of 8 is a quarter: not rarely")
        XCTAssertEqual(suggestions(pages("Pager", 8, acted: 1)).map(\.kind), [.timeSensitiveOff])
        // Open ones, or ones the app took back, tell nothing: still fewer than a handful.
        let open = (0..<6).map { (index: Int) -> ActivityRow in
            let reason: UInt32? = index < 3 ? nil : 3
            return row(UInt32(10 + index), "Pager", at: Double(index), level: .timeSensitive, closed: reason)
        }
        XCTAssertEqual(suggestions(pages("Pager", 4, acted: 0, from: 100) + open), [])
        // Already off.
        var off = AppRule()
        off.timeSensitive = false
        XCTAssertEqual(suggestions(pages("Pager", 5, acted: 0), current: ["Pager": .init(rule: off)]), [])
    }

    /// `count` active notifications of `app`, `ignored` of them dismissed or expired, the rest acted on.
    private func ordinary(_ app: String, _ count: Int, ignored: Int, level: InterruptionLevel = .active) -> [ActivityRow] {
        (0..<count).map { (index: Int) -> ActivityRow in
            let reason: UInt32 = index % 2 == 0 ? 1 : 2
            return row(UInt32(index + 1), app, at: Double(index) * 600, level: level, closed: reason, acted: index >= ignored)
        }
    }

    func testSummaryWhenMostlyDismissedOrExpired() {
        let found = suggestions(ordinary("Promo", 10, ignored: 8))
        XCTAssertEqual(found.map(\.kind), [.summary], "8 of 10 is four fifths")
        XCTAssertEqual(found.first?.command, "focusctl app Promo delivery summary")
        XCTAssertEqual(suggestions(ordinary("Promo", 10, ignored: 7)), [], "7 of 10 is not mostly")
        XCTAssertEqual(suggestions(ordinary("Promo", 9, ignored: 9)), [], "9 is fewer than the 10 it takes")
        XCTAssertEqual(suggestions(ordinary("Promo", 10, ignored: 10, level: .timeSensitive)).map(\.kind), [.timeSensitiveOff],
                       "a summary holds none of its notifications: time-sensitive")
        XCTAssertTrue(suggestions(ordinary("Promo", 10, ignored: 10), summary: false).first?.why
            .contains("no [summary] times are set") ?? false, "without a summary time it says so")
        var summary = AppRule()
        summary.delivery = .summary
        XCTAssertEqual(suggestions(ordinary("Promo", 10, ignored: 10), current: ["Promo": .init(rule: summary)]), [])
    }

    /// Three bursts of five of `app` at `level`, left open.
    private func bursts(_ app: String, level: InterruptionLevel = .active) -> [ActivityRow] {
        (0..<15).map { (index: Int) -> ActivityRow in
            let seconds = Double(index / 5) * 3600 + Double(index % 5)
            return row(UInt32(index + 1), app, at: seconds, level: level)
        }
    }

    func testBurstsMakeItPassiveOrMuted() {
        XCTAssertEqual(suggestions(bursts("Ticker")).map(\.kind), [.passive])
        XCTAssertEqual(suggestions(bursts("Ticker")).first?.command, "focusctl app Ticker level passive")
        XCTAssertEqual(suggestions(Array(bursts("Ticker").prefix(10))), [], "two bursts are not enough")
        let quiet = suggestions(bursts("Ticker", level: .passive))
        XCTAssertEqual(quiet.map(\.kind), [.mute], "passive already: quiet for a day")
        XCTAssertEqual(quiet.first?.command, "focusctl mute --for 1d Ticker")
        // Passive now (the figures are from before): nothing; muted now: nothing.
        var passive = AppRule()
        passive.level = .passive
        XCTAssertEqual(suggestions(bursts("Ticker"), current: ["Ticker": .init(rule: passive)]), [])
        XCTAssertEqual(suggestions(bursts("Ticker", level: .passive), current: ["Ticker": .init(muted: true)]), [])
    }

    func testNoneForTheBridgeItselfAndCommandsAreQuotedForTheShell() {
        XCTAssertEqual(suggestions(pages(Fate.ownApp, 10, acted: 0)), [])
        XCTAssertEqual(suggestions(pages("Team Chat", 5, acted: 0)).first?.command, "focusctl app 'Team Chat' time-sensitive off")
        XCTAssertEqual(suggestions(pages("-rf", 5, acted: 0)).first?.command, "focusctl app -- -rf time-sensitive off")
        XCTAssertEqual(suggestions(bursts("it's", level: .passive)).first?.command, #"focusctl mute --for 1d 'it'\''s'"#)
    }
}
