import FocusBridgeCore
import XCTest

final class BadgeCountsTests: XCTestCase {
    func testCountsPerAppAndPublishesEachChangeOnce() {
        var badges = BadgeCounts()
        badges.add(1, desktopID: "org.example.Mail", appKey: "org.example.Mail")
        badges.add(2, desktopID: "org.example.Mail", appKey: "org.example.Mail")
        badges.add(3, desktopID: "chat", appKey: "Chat")
        XCTAssertEqual(badges.takeUpdates(), [.init(desktopID: "chat", count: 1), .init(desktopID: "org.example.Mail", count: 2)])
        XCTAssertEqual(badges.takeUpdates(), [])
        XCTAssertEqual(BadgeCounts.Update(desktopID: "chat", count: 1).appURI, "application://chat.desktop")
    }

    func testARepeatCountsOnceAndKeepsItsApp() {
        var badges = BadgeCounts()
        badges.add(7, desktopID: "a", appKey: "a")
        badges.add(7, desktopID: "b", appKey: "b")
        XCTAssertEqual(badges.count("a"), 1)
        XCTAssertEqual(badges.count("b"), 0)
    }

    func testRemovingPublishesZeroOnceAndUnknownIDsChangeNothing() {
        var badges = BadgeCounts()
        badges.add(1, desktopID: "a", appKey: "a")
        _ = badges.takeUpdates()
        badges.remove(1)
        badges.remove(1)
        badges.remove(99)
        XCTAssertEqual(badges.takeUpdates(), [.init(desktopID: "a", count: 0)])
        XCTAssertEqual(badges.takeUpdates(), [])
    }

    func testAnAddAndARemoveInOnePassSendNothing() {
        var badges = BadgeCounts()
        badges.add(1, desktopID: "a", appKey: "a")
        badges.remove(1)
        XCTAssertEqual(badges.takeUpdates(), [])
    }

    func testFocusingTheAppClearsItByKeyOrDesktopIDWithoutCaseOrSuffix() {
        var badges = BadgeCounts()
        badges.add(1, desktopID: "org.gnome.Maps", appKey: "org.gnome.Maps")
        badges.add(2, desktopID: "firefox", appKey: "Firefox")
        badges.add(3, desktopID: "other", appKey: "other")
        badges.add(4, desktopID: "org.telegram.desktop", appKey: "Telegram Desktop")
        _ = badges.takeUpdates()
        badges.clear(app: "telegram")
        XCTAssertEqual(badges.count("org.telegram.desktop"), 1, "a shorter name is another app")
        badges.clear(app: "ORG.GNOME.MAPS.desktop")
        badges.clear(app: "firefox")
        badges.clear(app: "")
        XCTAssertEqual(badges.takeUpdates(), [.init(desktopID: "firefox", count: 0), .init(desktopID: "org.gnome.Maps", count: 0)])
        XCTAssertEqual(badges.count("other"), 1)
        badges.clear(app: "org.telegram.desktop")
        XCTAssertEqual(badges.count("org.telegram.desktop"), 0)
    }

    func testAnAppThatPublishesItsOwnBadgeIsLeftAlone() {
        var badges = BadgeCounts()
        badges.add(1, desktopID: "telegram", appKey: "telegram")
        _ = badges.takeUpdates()
        XCTAssertTrue(badges.stepBack("telegram"))
        XCTAssertFalse(badges.stepBack("telegram"))
        badges.add(2, desktopID: "telegram", appKey: "telegram")
        badges.remove(1)
        XCTAssertEqual(badges.takeUpdates(), [], "nothing is published over the app's own badge")
        XCTAssertEqual(badges.count("telegram"), 0)
        XCTAssertEqual(badges.trackedCount, 0)
    }

    func testSelfPublishersAreBounded() {
        var badges = BadgeCounts()
        for index in 0...BadgeCounts.maxSelfPublishers { badges.stepBack("app\(index)") }
        XCTAssertFalse(badges.publishesItself("app0"), "the oldest is forgotten")
        XCTAssertTrue(badges.publishesItself("app\(BadgeCounts.maxSelfPublishers)"))
    }

    func testTrackedNotificationsAreBoundedOldestFirst() {
        var badges = BadgeCounts()
        let total = BadgeCounts.maxTracked + 50
        for id in 1...UInt32(total) { badges.add(id, desktopID: id <= 50 ? "old" : "new", appKey: "k") }
        XCTAssertEqual(badges.trackedCount, BadgeCounts.maxTracked)
        XCTAssertEqual(badges.count("old"), 0)
        XCTAssertEqual(badges.count("new"), BadgeCounts.maxTracked)
        badges.remove(UInt32(total))
        XCTAssertEqual(badges.count("new"), BadgeCounts.maxTracked - 1)
    }

    func testRemoveAllWhereForgetsAnApp() {
        var badges = BadgeCounts()
        badges.add(1, desktopID: "a", appKey: "KeyA")
        badges.add(2, desktopID: "b", appKey: "KeyB")
        _ = badges.takeUpdates()
        badges.removeAll { _, key in key == "KeyA" }
        XCTAssertEqual(badges.takeUpdates(), [.init(desktopID: "a", count: 0)])
    }

    func testDesktopIDs() {
        XCTAssertEqual(BadgeCounts.withoutSuffix("org.gnome.Maps.desktop"), "org.gnome.Maps")
        XCTAssertEqual(BadgeCounts.withoutSuffix(".desktop"), nil)
        XCTAssertEqual(BadgeCounts.desktopID(fromURI: "application://org.telegram.desktop.desktop"), "org.telegram.desktop")
        XCTAssertTrue(BadgeCounts.sameApp("Org.Telegram.Desktop", "org.telegram.desktop"))
        XCTAssertTrue(BadgeCounts.sameApp("firefox.desktop", "firefox"))
        XCTAssertFalse(BadgeCounts.sameApp("org.telegram", "org.telegram.desktop.x"))
        XCTAssertEqual(BadgeCounts.desktopID(fromURI: "file:///x"), nil)
    }
}
