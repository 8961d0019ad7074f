import FocusBridgeCore
import XCTest

final class NotificationTableTests: XCTestCase {
    func testOwnershipBySenderOrByApp() {
        var table = NotificationTable()
        table.track(7, appKey: "notify-send", sender: ":1.5")
        XCTAssertNotNil(table.owned(7, sender: ":1.5", appKey: "other"), "same connection")
        XCTAssertNotNil(table.owned(7, sender: ":1.9", appKey: "Notify-Send"), "same app from a new process, any case")
        XCTAssertNil(table.owned(7, sender: ":1.9", appKey: "evil"), "someone else's ID is unknown")
        XCTAssertNil(table.owned(8, sender: ":1.5", appKey: "notify-send"), "unknown ID")
        XCTAssertNil(table.owned(0, sender: ":1.5", appKey: "notify-send"), "0 is never an ID")
    }

    func testDaemonIDsMapBothWaysAndAreForgottenWithTheDaemon() {
        var table = NotificationTable()
        table.track(1, appKey: "a", sender: ":1.1")
        table.track(2, appKey: "b", sender: ":1.2")
        table.bind(1, daemonID: 1001)
        XCTAssertEqual(table.id(forDaemonID: 1001), 1)
        table.bind(1, daemonID: 1002) // the daemon gave a new ID on replace
        XCTAssertNil(table.id(forDaemonID: 1001))
        XCTAssertEqual(table.id(forDaemonID: 1002), 1)
        let shown = table.forgetDaemon()
        XCTAssertEqual(shown.map(\.id), [1], "only what the daemon showed")
        XCTAssertNil(table.id(forDaemonID: 1002))
        XCTAssertNotNil(table[2], "not yet shown: still waiting to be forwarded")
    }

    func testTheSenderFollowsTheLatestNotify() {
        var table = NotificationTable()
        table.track(3, appKey: "app", sender: ":1.1")
        table.track(3, appKey: "app", sender: ":1.7")
        XCTAssertEqual(table[3]?.sender, ":1.7")
        XCTAssertEqual(table.count, 1)
    }

    func testMemoryIsBoundedByForgettingTheOldest() {
        var table = NotificationTable(capacity: 100)
        for id in UInt32(1)...UInt32(1000) { table.track(id, appKey: "flood", sender: ":1.1") }
        XCTAssertEqual(table.count, 100)
        XCTAssertNil(table[1])
        XCTAssertNotNil(table[1000])
    }
}
