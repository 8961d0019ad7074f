@testable import FocusBridgeCore
import FocusBridgeJSON
import FocusBridgeTime
import XCTest

/// The Time Sensitive review (focus-bridge(1), CHOICES; focusctl(1), REVIEW) on rows made here
/// and a fixed clock: what counts as sent and acted on, the thresholds on both sides, the memory
/// of the 7 days, and the weekly time across a change of daylight saving time.
final class TimeSensitiveReviewTests: XCTestCase {
    /// Monday 2026-11-23 12:00 UTC: two hours after this week's review time (UTC).
    private let now = Instant(timeIntervalSince1970: 1_795_435_200)
    private let day: Double = 86_400

    /// A time-sensitive row received `seconds` and one more before `now`.
    private func row(_ id: UInt32, _ app: String = "Pager", at seconds: Double, level: InterruptionLevel = .timeSensitive,
                     decision: DeliveryOutcome = .delivered, closed reason: UInt32? = 1, acted: Bool = false) -> ActivityRow {
        ActivityRow(id: id, app: app, level: level, decision: decision, received: now.addingTimeInterval(-seconds - 1),
                    closeReason: reason, acted: acted)
    }

    /// The 7 days before `now`, rows added newest first as the store gives them.
    private func tally(_ rows: [ActivityRow]) -> ActivityTally {
        var tally = ActivityTally(since: now.addingTimeInterval(-TimeSensitiveReview.periodSeconds), until: now,
                                  timeZone: .utc)
        for row in rows.sorted(by: { $0.received > $1.received }) { tally.add(row) }
        return tally
    }

    private func due(_ rows: [ActivityRow], memory: ReviewMemory = ReviewMemory(),
                     off: Set<String> = []) -> [TimeSensitiveReview.Item] {
        TimeSensitiveReview.due(tally(rows).ordered, memory: memory, at: now) { !off.contains($0) }
    }

    /// `sent` rows of `app`, the first `acted` of them acted on, an hour apart.
    private func rows(_ app: String, sent: Int, acted: Int, from id: UInt32 = 1) -> [ActivityRow] {
        (0..<sent).map { row(id + UInt32($0), app, at: Double($0) * 3600, acted: $0 < acted) }
    }

    // MARK: Thresholds

    func testThresholdsOnBothSides() {
        XCTAssertFalse(TimeSensitiveReview.isDue(sent: 2, acted: 0), "fewer than 3 sent")
        XCTAssertTrue(TimeSensitiveReview.isDue(sent: 3, acted: 0))
        XCTAssertTrue(TimeSensitiveReview.isDue(sent: 3, acted: 1), "1 of 3 is fewer than half")
        XCTAssertFalse(TimeSensitiveReview.isDue(sent: 3, acted: 2))
        XCTAssertFalse(TimeSensitiveReview.isDue(sent: 4, acted: 2), "half is not fewer than half")
        XCTAssertTrue(TimeSensitiveReview.isDue(sent: 5, acted: 2))
        XCTAssertFalse(TimeSensitiveReview.isDue(sent: 0, acted: 0))
    }

    func testAppsDueFromTheRowsOfThePeriod() {
        let found = due(rows("Pager", sent: 3, acted: 1) + rows("Chat", sent: 4, acted: 2, from: 10)
                        + rows("Alarm", sent: 2, acted: 0, from: 20) + rows("Build", sent: 6, acted: 0, from: 30))
        XCTAssertEqual(found, [TimeSensitiveReview.Item(app: "Build", sent: 6, acted: 0),
                               TimeSensitiveReview.Item(app: "Pager", sent: 3, acted: 1)],
                       "busiest first; Chat had half acted on, Alarm sent 2")
    }

    func testOnlyTimeSensitiveRowsOfThePeriodCount() {
        var rows = rows("Pager", sent: 2, acted: 0)
        rows.append(row(50, at: 60, level: .active))                                 // not time-sensitive
        rows.append(row(51, at: 60, level: .critical))
        rows.append(row(52, at: TimeSensitiveReview.periodSeconds + 60))             // before the period
        rows.append(row(53, at: -120))                                               // after its end
        XCTAssertEqual(due(rows), [], "two time-sensitive ones in the period")
        rows.append(row(54, at: TimeSensitiveReview.periodSeconds - 60))             // at the period's start
        XCTAssertEqual(due(rows), [TimeSensitiveReview.Item(app: "Pager", sent: 3, acted: 0)])
    }

    func testHeldOnesAreSentAndNotActedOnAndUpdatesCountOnce() {
        // Held by a Focus that does not allow time-sensitive: sent all the same, never acted on.
        let held = [row(1, at: 60, decision: .heldFocus, closed: nil), row(2, at: 120, decision: .heldFocus, closed: nil),
                    row(3, at: 180)]
        XCTAssertEqual(due(held), [TimeSensitiveReview.Item(app: "Pager", sent: 3, acted: 0)])
        // One notification updated twice under its ID, then acted on, and three more: four sent,
        // two acted on — half, not due. Counting the updates as ignored ones would make it six.
        let updated = [row(7, at: 60, acted: true), row(7, at: 120), row(7, at: 180), row(8, at: 240, acted: true),
                       row(9, at: 300), row(10, at: 360)]
        XCTAssertEqual(TimeSensitiveReview.sent(tally(updated).apps["Pager"]!), 4)
        XCTAssertEqual(due(updated), [])
    }

    func testNotTheBridgesOwnNorAnAppAlreadyOff() {
        let rows = rows(Fate.ownApp, sent: 5, acted: 0) + rows("Pager", sent: 5, acted: 0, from: 10)
        XCTAssertEqual(due(rows).map(\.app), ["Pager"])
        XCTAssertEqual(due(rows, off: ["Pager"]), [], "its Time Sensitive is off already")
    }

    // MARK: Memory

    func testAnAppIsReviewedOnceIn7Days() {
        let rows = rows("Pager", sent: 5, acted: 0)
        var memory = ReviewMemory()
        memory.note(.init(app: "pager", at: now.addingTimeInterval(-TimeSensitiveReview.periodSeconds + 1), sent: 4,
                          acted: 0, state: .delivered))
        XCTAssertEqual(due(rows, memory: memory), [], "reviewed less than 7 days ago (any case)")
        memory.note(.init(app: "Pager", at: now.addingTimeInterval(-TimeSensitiveReview.periodSeconds), sent: 4,
                          acted: 0, state: .delivered))
        XCTAssertEqual(due(rows, memory: memory).map(\.app), ["Pager"], "7 days ago: the period before")
        XCTAssertEqual(memory.entries.count, 1, "one entry per app")
        memory.note(.init(app: "Pager", at: now.addingTimeInterval(3600), sent: 4, acted: 0, state: .delivered))
        XCTAssertTrue(memory.wasReviewed("PAGER", before: now), "a review after now (the clock set back) counts")
    }

    func testMemoryForgetsWhatNoLongerMatters() {
        var memory = ReviewMemory()
        let old = now.addingTimeInterval(-8 * day)
        memory.note(.init(app: "Old", at: old, sent: 3, acted: 0, state: .delivered))
        memory.note(.init(app: "Waits", at: old, sent: 3, acted: 0, state: .waiting))
        memory.note(.init(app: "New", at: now.addingTimeInterval(-day), sent: 3, acted: 0, state: .delivered))
        XCTAssertEqual(memory.recent(at: now).map(\.app), ["Waits", "New"])
        XCTAssertEqual(memory.waiting.map(\.app), ["Waits"])
        memory.forget(at: now)
        XCTAssertEqual(memory.entries.map(\.app), ["Waits", "New"], "a waiting one stays until it goes out")
    }

    func testMemoryIsBounded() {
        var memory = ReviewMemory()
        for n in 0..<(ReviewMemory.maxEntries + 5) {
            memory.note(.init(app: "App \(n)", at: now, sent: 3, acted: 0, state: .delivered))
        }
        XCTAssertEqual(memory.entries.count, ReviewMemory.maxEntries)
        XCTAssertEqual(memory.entries.first?.app, "App 5", "the oldest went")
    }

    func testMemoryReadsBackAndLeavesOutWhatCannotBeUsed() throws {
        var memory = ReviewMemory()
        memory.note(.init(app: "Pager", at: now, sent: 5, acted: 1, state: .waiting))
        let text = JSONText.encode(memory)
        XCTAssertEqual(text, #"{"apps":[{"acted":1,"app":"Pager","at":1795435200,"sent":5,"state":"waiting"}]}"#)
        XCTAssertEqual(try JSONText.decode(ReviewMemory.self, from: text), memory)
        let stored = #"{"apps":[{"acted":1,"app":"Pager","at":1795435200,"sent":5,"state":"waiting"},"#
            + #"{"acted":9,"app":"Odd","at":1795435200,"sent":5,"state":"delivered"},"#
            + #"{"acted":0,"app":"","at":1795435200,"sent":5,"state":"delivered"},"#
            + #"{"acted":0,"app":"Far","at":1e300,"sent":5,"state":"delivered"}]}"#
        XCTAssertEqual(try JSONText.decode(ReviewMemory.self, from: stored).entries.map(\.app), ["Pager"])
    }

    // MARK: The weekly time

    func testWeeklyOnMondayAt10LocalTime() {
        let mondayTen = Instant(timeIntervalSince1970: 1_795_428_000) // 2026-11-23 10:00 UTC
        XCTAssertEqual(TimeSensitiveReview.next(after: now, timeZone: .utc), mondayTen.addingTimeInterval(7 * day))
        XCTAssertEqual(TimeSensitiveReview.next(after: mondayTen.addingTimeInterval(-1), timeZone: .utc), mondayTen)
        XCTAssertEqual(TimeSensitiveReview.next(after: mondayTen, timeZone: .utc), mondayTen.addingTimeInterval(7 * day),
                       "the next after a review is a week on")
        XCTAssertEqual(TimeSensitiveReview.instants(after: mondayTen.addingTimeInterval(-1), through: mondayTen,
                                                    timeZone: .utc), [mondayTen], "its own time is in")
        XCTAssertEqual(TimeSensitiveReview.instants(after: mondayTen, through: now, timeZone: .utc), [])
        XCTAssertEqual(TimeSensitiveReview.instants(after: now.addingTimeInterval(-15 * day), through: now,
                                                    timeZone: .utc).count, 3, "each missed one, caught up once by the caller")
        XCTAssertFalse(TimeSensitiveReview.instants(after: now.addingTimeInterval(-3000 * day), through: now,
                                                    timeZone: .utc).isEmpty, "a stored time years ago still catches up")
    }

    func testTheTimeIsLocalAcrossDaylightSavingTime() {
        let berlin = zone("Europe/Berlin")
        // Sunday 2026-03-29 the clocks go forward: Monday 10:00 is 08:00 UTC, the Monday before 09:00 UTC.
        let sunday = Instant(timeIntervalSince1970: 1_774_778_400) // 2026-03-29 10:00 UTC
        XCTAssertEqual(TimeSensitiveReview.next(after: sunday, timeZone: berlin),
                       Instant(timeIntervalSince1970: 1_774_857_600)) // 2026-03-30 08:00 UTC
        XCTAssertEqual(TimeSensitiveReview.next(after: sunday.addingTimeInterval(-7 * day), timeZone: berlin),
                       Instant(timeIntervalSince1970: 1_774_256_400)) // 2026-03-23 09:00 UTC
        XCTAssertEqual(TimeSensitiveReview.next(after: sunday, timeZone: zone("Asia/Kolkata")),
                       Instant(timeIntervalSince1970: 1_774_845_000)) // 2026-03-30 04:30 UTC
    }
}
