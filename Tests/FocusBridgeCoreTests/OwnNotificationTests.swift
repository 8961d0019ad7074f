import FocusBridgeCore
import FocusBridgeTime
import XCTest

/// `OwnNotification`: how the bridge's own notifications are shown, and when a Focus holds them.
final class OwnNotificationTests: XCTestCase {
    private let context = PolicyContext(now: Instant(timeIntervalSince1970: 1_800_000_000))
    private let own = AppIdentity(key: OwnNotification.appName, source: .appName)

    func testADigestAsksActivelyAnNMorePassivelyInTheAppsNameAndACopyAtItsLevel() {
        let request = NotificationRequest(appName: "FocusBridge", summary: "While Work was on", actions: ["show-all", "Show All"])
        let digest = OwnNotification.shown(.asking, request, app: own, context: context)
        XCTAssertEqual(digest.level, .active)
        XCTAssertEqual(digest.actions.flat.prefix(2), ["show-all", "Show All"])

        let chat = AppIdentity(key: "Chat", source: .appName)
        let more = OwnNotification.shown(.moreFrom, NotificationRequest(appName: "chat-client", summary: "3 more from Chat"),
                                         app: chat, context: context)
        XCTAssertEqual(more.level, .passive)

        var critical = NotificationRequest(appName: "Alarm", summary: "Wake up")
        critical.hints["urgency"] = .integer(2)
        XCTAssertEqual(OwnNotification.shown(.copy, critical, app: AppIdentity(key: "Alarm", source: .appName),
                                             context: context).level,
                       Policy.present(critical, app: AppIdentity(key: "Alarm", source: .appName), context: context).level,
                       "a copy is shown as its app's")
    }

    func testAFocusHoldsTheBridgesQuestionsUnlessItAllowsTheBridge() {
        XCTAssertFalse(OwnNotification.held(by: nil), "no Focus on")
        XCTAssertTrue(OwnNotification.held(by: FocusProfile(name: "Work")))
        var allowing = FocusProfile(name: "Work")
        allowing.apps = .allowOnly([OwnNotification.appName])
        XCTAssertFalse(OwnNotification.held(by: allowing))
    }
}
