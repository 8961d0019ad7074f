import FocusBridgeCore
import FocusBridgeTime
import XCTest

/// The GTK door's request (`GtkNotification`): what a GTK notification means for the decision.
final class GtkNotificationTests: XCTestCase {
    private let now = Instant(timeIntervalSince1970: 1_800_000_000)

    private func level(_ notification: GtkNotification, critical: Bool = false) -> InterruptionLevel {
        var context = PolicyContext(now: now)
        if critical {
            var rule = AppRule()
            rule.critical = true
            context.settings.apps = [notification.appID: rule]
        }
        let request = notification.request()
        let app = AppIdentity.resolve(request, process: nil)
        return Policy.decide(request, app: app, context: context).level
    }

    func testPriorityGivesTheLevelAndUrgentIsCriticalOnlyForAnEntitledApp() {
        let mail = GtkNotification(appID: "org.example.Mail", id: "1", title: "Hi")
        XCTAssertEqual(level(mail), .active, "no priority: normal")
        for (priority, expected) in [(GtkNotification.Priority.low, InterruptionLevel.passive), (.normal, .active),
                                     (.high, .active), (.urgent, .timeSensitive)] {
            var n = mail
            n.priority = priority
            XCTAssertEqual(level(n), expected, "\(priority)")
        }
        var urgent = mail
        urgent.priority = .urgent
        XCTAssertEqual(level(urgent, critical: true), .critical)
        var legacy = mail
        legacy.urgent = true
        XCTAssertEqual(level(legacy), .timeSensitive, "`urgent`, from before `priority`")
        var category = mail
        category.category = "im.received"
        XCTAssertEqual(category.request().hints["category"]?.string, "im.received", "the category as for fdo")
    }

    func testTheRequestNamesTheAppItsButtonsAndItsDoor() {
        let n = GtkNotification(appID: "org.example.Mail", id: "7", title: "T", body: "B", buttonLabels: ["Reply", "Delete"])
        let request = n.request(replacing: 12)
        XCTAssertEqual(request.door, .gtk)
        XCTAssertEqual(request.appName, "org.example.Mail")
        XCTAssertEqual(request.desktopEntry, "org.example.Mail")
        XCTAssertEqual(request.actions, ["0", "Reply", "1", "Delete"], "each button keyed by its index; no default")
        XCTAssertEqual(request.replacesID, 12)
        XCTAssertEqual(GtkNotification.buttonIndex(forKey: "1"), 1)
        XCTAssertNil(GtkNotification.buttonIndex(forKey: "01"))
        XCTAssertNil(GtkNotification.buttonIndex(forKey: "x-focus-mute-1h"))
    }

    func testThePriorityShownIsTheAppsOwnWhenItMeansTheDecidedUrgency() {
        var n = GtkNotification(appID: "a.b", id: "1")
        n.priority = .high
        XCTAssertEqual(n.priority(forUrgency: 1), .high)
        XCTAssertEqual(n.priority(forUrgency: 0), .low)
        XCTAssertEqual(n.priority(forUrgency: 2), .urgent)
        n.priority = nil
        XCTAssertEqual(n.priority(forUrgency: 1), .normal)
    }

    func testAppIDsTheShellCanActivate() {
        for valid in ["org.gnome.Calendar", "a", "org.example.My-App", "x_1.y"] {
            XCTAssertTrue(GtkNotification.isValidAppID(valid), valid)
        }
        for invalid in ["", ".a", "a.", "a..b", "a b", "a/b", "ä.b", String(repeating: "a", count: 256)] {
            XCTAssertFalse(GtkNotification.isValidAppID(invalid), invalid)
        }
    }

    func testACallerOfTheGtkDoorIsStoredAsSuchAndOlderRowsAreFdo() {
        let gtk = Caller(connection: ":1.5", userID: 1000, sandbox: nil, door: .gtk)
        XCTAssertEqual(gtk.stored, ":1.5 1000 - gtk")
        XCTAssertEqual(Caller(stored: Substring(gtk.stored)), gtk)
        XCTAssertEqual(Caller(stored: ":1.5 1000 -")?.door, .fdo)
        XCTAssertNil(Caller(stored: ":1.5 1000 - xyz"))
        XCTAssertFalse(Door.gtk.signalsHolders)
    }
}
