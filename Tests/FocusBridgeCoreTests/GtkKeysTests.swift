import FocusBridgeCore
import XCTest

/// `GtkKeys`: the bridge ID of each GTK notification by its app and its own ID, bounded.
final class GtkKeysTests: XCTestCase {
    func testAnIDIsFoundByItsAppAndForgottenWhenItEnds() {
        var keys = GtkKeys()
        keys.bind(7, appKey: "org.example.Mail", appID: "org.example.Mail", id: "inbox")
        XCTAssertEqual(keys.id(appKey: "org.example.Mail", id: "inbox"), 7)
        XCTAssertNil(keys.id(appKey: "org.example.Intruder", id: "inbox"), "another app's same ID is not it")
        keys.bind(9, appKey: "org.example.Mail", appID: "org.example.Mail", id: "inbox")
        XCTAssertEqual(keys.id(appKey: "org.example.Mail", id: "inbox"), 9, "a new ID for the same key wins")
        keys.forget(7)
        XCTAssertEqual(keys.id(appKey: "org.example.Mail", id: "inbox"), 9, "forgetting the old ID leaves the new one")
        keys.forget(9)
        XCTAssertNil(keys.id(appKey: "org.example.Mail", id: "inbox"))
        XCTAssertEqual(keys.count, 0)
    }

    func testItStaysWithinItsBoundForgettingTheOldest() {
        var keys = GtkKeys()
        for n in 1...UInt32(GtkKeys.capacity + 500) {
            keys.bind(n, appKey: "app", appID: "app", id: "n\(n)")
        }
        XCTAssertLessThanOrEqual(keys.count, GtkKeys.capacity)
        XCTAssertNil(keys.id(appKey: "app", id: "n1"), "the oldest went first")
        XCTAssertEqual(keys.id(appKey: "app", id: "n\(GtkKeys.capacity + 500)"), UInt32(GtkKeys.capacity + 500))
    }
}
