import FocusBridgeCore
import FocusBridgeStore
import FocusBridgeTime
import Foundation
import XCTest

/// History is pruned to `history-days` at start and about daily, riding on the wake-ups the
/// bridge has anyway.
final class HistoryRetentionTests: XCTestCase {
    private let start = Instant(timeIntervalSince1970: 1_800_000_000)
    private let hour: Double = 3600

    func testDueAtStartThenAfterHalfADayAtTheLatestADay() {
        let retention = HistoryRetention(days: 7)
        XCTAssertTrue(retention.isDue(at: start, lastPruned: nil), "at start")
        XCTAssertFalse(retention.isDue(at: start + 11 * hour, lastPruned: start), "a boundary soon after: not yet")
        XCTAssertTrue(retention.isDue(at: start + 12 * hour, lastPruned: start), "a boundary half a day later")
        XCTAssertEqual(retention.deadline(after: start), start + 24 * hour, "the timer's deadline")
        XCTAssertTrue(retention.isDue(at: start - hour, lastPruned: start), "the clock was set back")
        XCTAssertEqual(retention.cutoff(at: start), start - 7 * 24 * hour)
    }

    /// A week of a bridge woken only by the summary at 08:00 and 18:00 (and the prune deadline):
    /// pruned every day, and never woken for pruning alone.
    func testAWeekWithTwoSummariesADayAddsNoWakeUps() {
        let retention = HistoryRetention(days: 7)
        let day: Double = 86_400
        let midnight = Instant(timeIntervalSince1970: 1_800_057_600) // a UTC midnight
        var summaries: [Instant] = []
        for index in 0..<8 {
            let dayStart = midnight.addingTimeInterval(Double(index) * day)
            summaries += [dayStart.addingTimeInterval(8 * hour), dayStart.addingTimeInterval(18 * hour)]
        }
        var now = midnight + 13 * hour   // started at 13:00
        var pruned: [Instant] = []
        var last: Instant?
        var extraWakeUps = 0
        while now < midnight + 7 * day {
            if retention.isDue(at: now, lastPruned: last) { pruned.append(now); last = now }
            let nextSummary = summaries.first { $0 > now }!
            let deadline = retention.deadline(after: last!)
            if deadline < nextSummary { extraWakeUps += 1 }
            now = min(nextSummary, deadline)
        }
        XCTAssertEqual(extraWakeUps, 0)
        XCTAssertEqual(pruned.count, 7, "once a day: \(pruned)")
        for (a, b) in zip(pruned, pruned.dropFirst()) { XCTAssertLessThanOrEqual(b.timeIntervalSince(a), day) }
    }

    func testTheStoreForgetsWhatIsOlder() throws {
        let directory = NSTemporaryDirectory() + "retention-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(directory: directory)
        let old = HistoryEntry(id: 1, app: "a", summary: "old", body: "", level: .active, decision: .delivered,
                               received: start - 8 * 86_400)
        let recent = HistoryEntry(id: 2, app: "a", summary: "recent", body: "", level: .active, decision: .delivered,
                                  received: start - 86_400)
        try store.record([old, recent])
        XCTAssertEqual(try store.pruneHistory(before: HistoryRetention(days: 7).cutoff(at: start)), 1)
        XCTAssertEqual(try store.history(limit: 10).map(\.summary), ["recent"])
    }
}
