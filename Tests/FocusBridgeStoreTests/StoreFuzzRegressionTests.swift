import FocusBridgeCore
import FocusBridgeStore
import FocusBridgeTime
import Foundation
import XCTest

/// The fuzz finding about the state database (Fuzz/README.md, "Findings"; the reproducer is
/// Fuzz/crashes/notify-text/crash-nan-relevance). The fix is guarded here.
final class StoreFuzzRegressionTests: XCTestCase {
    /// Finding 8: `x-focus-relevance = <nan>` (a double any client can send) comes out of
    /// `HeldNotification.relevance(of:)` as NaN: `min(max(nan, 0), 1)` is NaN. SQLite stores a NaN
    /// as NULL, the `relevance` column is NOT NULL, so the group commit of the batch it is in
    /// fails: a notification held during a Focus makes the bridge lose the history rows of every
    /// notification answered with it (up to 64) and deliver the held ones through the Focus.
    /// Fixed: NaN counts as 0.
    func testNanRelevanceIsClampedAndStored() throws {
        let nan = NotificationRequest(appName: "Mail", summary: "s", hints: ["x-focus-relevance": .double(.nan)])
        let relevance = HeldNotification.relevance(of: nan)
        XCTAssertTrue((0...1).contains(relevance))

        let directory = NSTemporaryDirectory() + "focus-bridge-fuzz-regression-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(directory: directory)
        let now = Instant(timeIntervalSince1970: 1_800_000_000)
        let held = HeldNotification(id: 2, reason: .focus("Work"), app: "Mail", summary: "s", body: "", level: .active,
                                    relevance: relevance, received: now, holders: [Caller(connection: ":1.9")], processID: nil)
        let other = HistoryEntry(id: 1, app: "Chat", summary: "delivered in the same batch", body: "", level: .active,
                                 decision: .delivered, received: now)
        let history = HistoryEntry(id: 2, app: "Mail", summary: "s", body: "", level: .active, decision: .heldFocus,
                                   received: now)
        try store.commit(history: [other, history], holds: [Store.Hold(item: held, payloadType: "(s)", payload: [0x73, 0])])
        XCTAssertEqual(try store.history(limit: 10).count, 2)
        XCTAssertEqual(try store.heldNotifications().count, 1)
    }
}
