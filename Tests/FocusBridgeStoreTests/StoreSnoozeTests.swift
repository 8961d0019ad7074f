import FocusBridgeCore
import FocusBridgeStore
import FocusBridgeTime
import Foundation
import XCTest

/// A snoozed notification is held like one a Focus holds, its end kept in the same columns: it
/// comes back with the same end after a restart, and a damaged end makes it due, never lost.
final class StoreSnoozeTests: XCTestCase {
    private let now = Instant(timeIntervalSince1970: 1_800_000_000)

    private func item(_ id: UInt32, _ reason: HeldNotification.Reason) -> HeldNotification {
        HeldNotification(id: id, reason: reason, app: "Mail", summary: "s\(id)", body: "", level: .active, relevance: 0,
                         received: now, holders: [Caller(connection: ":1.9", userID: 1000)], processID: nil)
    }

    func testASnoozeAndItsEndSurviveAReopenAndCanBeChanged() throws {
        let directory = NSTemporaryDirectory() + "focus-bridge-snooze-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let until = now.addingTimeInterval(5400.5)
        do {
            let store = try Store(directory: directory)
            try store.commit(history: [], holds: [Store.Hold(item: item(1, .snooze(until: until)), payloadType: "(s)", payload: [0x73, 0]),
                                                  Store.Hold(item: item(2, .focus("Work")), payloadType: "(s)", payload: [0x73, 0])])
        }
        let store = try Store(directory: directory)
        let reasons = Dictionary(uniqueKeysWithValues: try store.heldNotifications().map { ($0.item.id, $0.item.reason) })
        XCTAssertEqual(reasons, [1: .snooze(until: until), 2: .focus("Work")])

        try store.setHeldReason(1, .focus("Work"))
        try store.setHeldReason(2, .snooze(until: until))
        let changed = Dictionary(uniqueKeysWithValues: try store.heldNotifications().map { ($0.item.id, $0.item.reason) })
        XCTAssertEqual(changed, [1: .focus("Work"), 2: .snooze(until: until)])
        XCTAssertNotNil(try store.heldPayload(2), "its arguments stay for the replay")
    }

    func testAnEndThatCannotBeReadIsDueNow() throws {
        let directory = NSTemporaryDirectory() + "focus-bridge-snooze-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let store = try Store(directory: directory)
            try store.commit(history: [], holds: [Store.Hold(item: item(3, .snooze(until: now)), payloadType: "(s)", payload: [0x73, 0])])
        }
        // The row as a damaged or hand-edited file may have it: kind snooze, an end that is no time.
        do {
            let database = try SQLiteDatabase(path: directory + "/state.sqlite3")
            try database.execute("UPDATE held SET focus = 'not a time' WHERE id = 3")
        }
        let store = try Store(directory: directory)
        XCTAssertEqual(try store.heldNotifications().map(\.item.reason), [.snooze(until: TimeBounds.earliest)])
    }
}
