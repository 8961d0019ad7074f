@testable import FocusBridgeCore
import FocusBridgeTime
import XCTest

final class DuplicateTrackerTests: XCTestCase {
    let t0 = Instant(timeIntervalSince1970: 1_000_000)

    func testARepeatWithinTheWindowIsFoundAndNotAfterItOrOnceClosed() {
        var tracker = DuplicateTracker()
        tracker.delivered(1, appKey: "Mail", summary: "New mail", body: "from Ann", at: t0)
        XCTAssertEqual(tracker.original(appKey: "mail", summary: "New mail", body: "from Ann", now: t0 + 5, window: 10), 1,
                       "the app key's case does not matter")
        XCTAssertNil(tracker.original(appKey: "Mail", summary: "New mail", body: "from Ann", now: t0 + 10, window: 10))
        XCTAssertNil(tracker.original(appKey: "Mail", summary: "New mail", body: "from Bob", now: t0 + 1, window: 10))
        XCTAssertNil(tracker.original(appKey: "Mail", summary: "New mail", body: "from Ann", now: t0 + 1, window: 0))
        tracker.closed(1)
        XCTAssertNil(tracker.original(appKey: "Mail", summary: "New mail", body: "from Ann", now: t0 + 1, window: 10))
        XCTAssertEqual(tracker.count, 0)
    }

    func testTextsAreToldApartWhereverTheyDifferAndTheKeyHoldsNoText() {
        XCTAssertEqual(MemoryLayout<DuplicateTracker.Key>.size, 24)
        let long = String(repeating: "x", count: 5000)
        typealias Key = DuplicateTracker.Key
        XCTAssertEqual(Key(app: "Mail", summary: "s", body: long), Key(app: "mail", summary: "s", body: long))
        XCTAssertNotEqual(Key(app: "mail", summary: "s", body: long + "a"), Key(app: "mail", summary: "s", body: long + "b"),
                          "past the first 256 bytes, same length")
        XCTAssertNotEqual(Key(app: "mail", summary: "ab", body: "c"), Key(app: "mail", summary: "a", body: "bc"))
        XCTAssertNotEqual(Key(app: "mailx", summary: "", body: ""), Key(app: "mail", summary: "x", body: ""))
        XCTAssertNotEqual(Key(app: "mail", summary: "", body: ""), Key(app: "chat", summary: "", body: ""))
        XCTAssertEqual(Key(app: String(repeating: "a", count: 300), summary: "", body: ""),
                       Key(app: String(repeating: "a", count: 256) + "b", summary: "", body: ""),
                       "app keys are known by their first 256 bytes, as everywhere")
        var tracker = DuplicateTracker()
        tracker.delivered(1, appKey: "a", summary: long, body: long, at: t0)
        XCTAssertEqual(tracker.original(appKey: "a", summary: long, body: long, now: t0, window: 1), 1)
    }

    func testTheSameIDDeliveredAgainIsRememberedForItsNewTextOnly() {
        var tracker = DuplicateTracker()
        tracker.delivered(1, appKey: "a", summary: "v1", body: "", at: t0)
        tracker.delivered(1, appKey: "a", summary: "v2", body: "", at: t0 + 1) // replaced by its app
        XCTAssertNil(tracker.original(appKey: "a", summary: "v1", body: "", now: t0 + 2, window: 10))
        XCTAssertEqual(tracker.original(appKey: "a", summary: "v2", body: "", now: t0 + 2, window: 10), 1)
        tracker.delivered(2, appKey: "a", summary: "v2", body: "", at: t0 + 3) // the same text under another ID
        XCTAssertEqual(tracker.original(appKey: "a", summary: "v2", body: "", now: t0 + 4, window: 10), 2)
        tracker.closed(1)
        XCTAssertEqual(tracker.original(appKey: "a", summary: "v2", body: "", now: t0 + 4, window: 10), 2,
                       "closing the older ID does not forget the newer")
        XCTAssertEqual(tracker.count, 1)
    }

    func testPastItsCapacityTheOldestIsForgotten() {
        var tracker = DuplicateTracker(capacity: 100)
        for id in UInt32(1)...1000 {
            tracker.delivered(id, appKey: "flood", summary: "n\(id)", body: "", at: t0 + Double(id))
        }
        XCTAssertEqual(tracker.count, 100)
        XCTAssertNil(tracker.original(appKey: "flood", summary: "n900", body: "", now: t0 + 1000, window: 1e6))
        XCTAssertEqual(tracker.original(appKey: "flood", summary: "n901", body: "", now: t0 + 1000, window: 1e6), 901)
        XCTAssertEqual(tracker.original(appKey: "flood", summary: "n1000", body: "", now: t0 + 1000, window: 1e6), 1000)
        for id in UInt32(901)...1000 { tracker.closed(id) }
        XCTAssertEqual(tracker.count, 0)
        tracker.delivered(5, appKey: "again", summary: "", body: "", at: t0)
        XCTAssertEqual(tracker.original(appKey: "again", summary: "", body: "", now: t0, window: 1), 5)
    }

    /// A plain reference (two dictionaries, the oldest searched for) to compare with.
    struct Reference {
        var recent: [DuplicateTracker.Key: (id: UInt32, at: Instant)] = [:]
        var keys: [UInt32: DuplicateTracker.Key] = [:]
        let capacity: Int

        func original(appKey: String, summary: String, body: String, now: Instant, window: Double) -> UInt32? {
            guard window > 0, let hit = recent[.init(app: appKey, summary: summary, body: body)] else { return nil }
            return now.timeIntervalSince(hit.at) < window ? hit.id : nil
        }

        mutating func delivered(_ id: UInt32, appKey: String, summary: String, body: String, at date: Instant) {
            closed(id)
            let key = DuplicateTracker.Key(app: appKey, summary: summary, body: body)
            if let old = recent[key] { keys[old.id] = nil }
            recent[key] = (id, date)
            keys[id] = key
            if recent.count > capacity, let oldest = recent.min(by: { $0.value.at < $1.value.at }) {
                recent[oldest.key] = nil
                keys[oldest.value.id] = nil
            }
        }

        mutating func closed(_ id: UInt32) {
            guard let key = keys.removeValue(forKey: id) else { return }
            if recent[key]?.id == id { recent[key] = nil }
        }
    }

    func testItAnswersAsTheFirstVersionDidThroughDeliveriesReplacementsAndClosesInAnyOrder() {
        var generator = SystemRandomNumberGenerator()
        for capacity in [1, 3, 16, 64] {
            var tracker = DuplicateTracker(capacity: capacity)
            var reference = Reference(capacity: capacity)
            var now = t0
            for step in 0..<20_000 {
                now = now + 0.01
                let id = UInt32.random(in: 1...UInt32(capacity * 3), using: &generator)
                let text = "s\(Int.random(in: 0..<(capacity * 2), using: &generator))"
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<5:
                    tracker.delivered(id, appKey: "app", summary: text, body: "b", at: now)
                    reference.delivered(id, appKey: "app", summary: text, body: "b", at: now)
                case 5..<8:
                    tracker.closed(id)
                    reference.closed(id)
                default:
                    break
                }
                XCTAssertEqual(tracker.count, reference.keys.count, "capacity \(capacity), step \(step)")
                XCTAssertEqual(tracker.original(appKey: "APP", summary: text, body: "b", now: now, window: 50),
                               reference.original(appKey: "APP", summary: text, body: "b", now: now, window: 50),
                               "capacity \(capacity), step \(step)")
                if tracker.count != reference.keys.count { return }
            }
            for text in (0..<(capacity * 2)).map({ "s\($0)" }) {
                XCTAssertEqual(tracker.original(appKey: "app", summary: text, body: "b", now: now, window: 1e9),
                               reference.original(appKey: "app", summary: text, body: "b", now: now, window: 1e9))
            }
        }
    }
}
