import FocusBridgeCore
import FocusBridgeTime
import Foundation
import XCTest

/// The window in front: matching a window to an app, the `foreground` decision, and the Focus
/// that windows turn on with its grace period (sway's tree and Hyprland's events are read by the
/// server: SwayTreeTests).
final class WindowTests: XCTestCase {
    private let now = Instant(timeIntervalSince1970: 1_800_000_000)

    func testAWindowIsAnAppByNameWithoutCaseOrDesktopSuffixOrByProcess() {
        let firefox = FocusedWindow(names: ["org.mozilla.firefox", "Navigator", "firefox"], processID: 42)
        XCTAssertTrue(firefox.isApp("org.mozilla.Firefox.desktop"))
        XCTAssertTrue(firefox.isApp("FIREFOX"))
        XCTAssertFalse(firefox.isApp("Thunderbird"))
        XCTAssertTrue(firefox.isApp("Web", senderProcessID: 42), "the sender is the window's process")
        XCTAssertFalse(firefox.isApp("Web", senderProcessID: 43))
        XCTAssertEqual(FocusedWindow(names: ["", "Foot", "foot"]).names, ["Foot"], "empty and repeated names go")
    }

    func testTheFocusedAppsNotificationsAreNotShownBelowTimeSensitive() {
        var context = PolicyContext(now: now)
        context.focusedWindow = FocusedWindow(names: ["Slack"])
        let app = AppIdentity(key: "slack", source: .appName)
        let hidden = Policy.decide(NotificationRequest(summary: "hi"), app: app, context: context)
        XCTAssertEqual(hidden.outcome, .foreground)
        XCTAssertTrue(hidden.trace.last!.contains("Slack is the window in front"))
        XCTAssertEqual(Policy.decide(NotificationRequest(hints: ["urgency": .integer(2)]), app: app, context: context).outcome,
                       .delivered, "time-sensitive is shown all the same")
        XCTAssertEqual(Policy.decide(NotificationRequest(), app: AppIdentity(key: "Mail", source: .appName), context: context).outcome,
                       .delivered)
        var show = context
        show.settings.general.whenFocused = .show
        XCTAssertEqual(Policy.decide(NotificationRequest(), app: app, context: show).outcome, .delivered)
        var perApp = context
        var rule = AppRule()
        rule.whenFocused = .show
        perApp.settings.apps["Slack"] = rule
        XCTAssertEqual(Policy.decide(NotificationRequest(), app: app, context: perApp).outcome, .delivered)
        var byProcess = PolicyContext(now: now)
        byProcess.focusedWindow = FocusedWindow(names: ["kitty"], processID: 7)
        byProcess.senderProcessID = 7
        XCTAssertEqual(Policy.decide(NotificationRequest(), app: AppIdentity(key: "build.sh", source: .executable),
                                     context: byProcess).outcome, .foreground)
        let intake = Intake.take(NotificationRequest(), app: app, caller: Caller(connection: ":1.2", userID: 1), payloadBytes: 1,
                                 context: context, focusName: nil, table: NotificationTable(), held: { _ in nil }, newID: { 1 })
        XCTAssertEqual(intake.step, .drop(endsAtOnce: true), "its ID ends at once")
    }

    func testWindowsTurnAFocusOnAtOnceAndOffAfterTheGrace() {
        var video = FocusProfile(name: "video")
        video.whileFullscreen = true
        var calls = FocusProfile(name: "calls")
        calls.whileFocused = ["zoom", "org.videolan.VLC"]
        let focuses = [calls, video]
        var trigger = WindowTrigger()
        let vlc = FocusedWindow(names: ["vlc"], fullscreen: true)
        XCTAssertTrue(trigger.update(WindowState(focused: vlc), focuses: focuses, at: now))
        XCTAssertEqual(trigger.on?.focus, "video")
        XCTAssertEqual(trigger.on?.reason, "while vlc is fullscreen")
        XCTAssertFalse(trigger.update(WindowState(focused: FocusedWindow(names: ["foot"])), focuses: focuses,
                                      at: now.addingTimeInterval(1)), "a window switch does not flap it")
        XCTAssertEqual(trigger.nextChange, now.addingTimeInterval(1 + WindowTrigger.grace))
        XCTAssertFalse(trigger.update(WindowState(focused: vlc), focuses: focuses, at: now.addingTimeInterval(2)))
        XCTAssertNil(trigger.nextChange, "back within the grace: still on, nothing to wait for")
        trigger.update(WindowState(), focuses: focuses, at: now.addingTimeInterval(3))
        XCTAssertTrue(trigger.update(WindowState(), focuses: focuses, at: now.addingTimeInterval(3 + WindowTrigger.grace)))
        XCTAssertNil(trigger.on)
        XCTAssertTrue(trigger.update(WindowState(focused: FocusedWindow(names: ["Zoom"])), focuses: focuses, at: now))
        XCTAssertEqual(trigger.on?.reason, "while Zoom is focused")

        let engine = FocusEngine(focuses: focuses, timeZone: TimeZoneRules.utc)
        XCTAssertEqual(engine.active(at: now, manual: nil, window: trigger.on)?.source, .window)
        let off = ManualFocus(state: .off, since: now, until: nil)
        XCTAssertNil(engine.active(at: now, manual: off, window: trigger.on), "a manual change wins")
    }

}
