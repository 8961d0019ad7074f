import FocusBridgeCore
import FocusBridgeTime
import Foundation
import XCTest

final class PolicyTests: XCTestCase {
    private let app = AppIdentity(key: "Mail", source: .appName)
    private let now = Instant(timeIntervalSince1970: 1_800_000_000)

    private func decide(_ notification: NotificationRequest, app: AppIdentity? = nil,
                        _ change: (inout PolicyContext) -> Void = { _ in }) -> Decision {
        var context = PolicyContext(now: now)
        change(&context)
        return Policy.decide(notification, app: app ?? self.app, context: context)
    }

    func testPresentationPerLevel() {
        let cases: [(UInt8?, String?, InterruptionLevel, UInt8, Bool)] = [
            (0, nil, .passive, 0, true),
            (1, nil, .active, 1, false),
            (nil, "call", .timeSensitive, 1, false),
            (2, nil, .timeSensitive, 2, false),
        ]
        for (urgency, category, level, forwarded, quiet) in cases {
            var hints: [String: HintValue] = [:]
            if let urgency { hints["urgency"] = .integer(Int64(urgency)) }
            if let category { hints["category"] = .string(category) }
            let decision = decide(NotificationRequest(hints: hints))
            XCTAssertEqual(decision.level, level)
            XCTAssertEqual(decision.presentation.urgency, forwarded, "\(level)")
            XCTAssertEqual(decision.presentation.suppressSound, quiet, "\(level)")
        }
        var settings = PolicySettings()
        var entitled = AppRule()
        entitled.critical = true
        settings.apps["Mail"] = entitled
        let critical = decide(NotificationRequest(hints: ["x-focus-interruption-level": .string("critical"), "urgency": .integer(0)])) {
            $0.settings = settings
        }
        XCTAssertEqual(critical.presentation.urgency, 2)
    }

    func testSilentModeSilencesAllButCritical() {
        XCTAssertTrue(decide(NotificationRequest()) { $0.silent = true }.presentation.suppressSound)
        var settings = PolicySettings()
        var entitled = AppRule()
        entitled.critical = true
        settings.apps["mail"] = entitled
        XCTAssertFalse(decide(NotificationRequest(hints: ["urgency": .integer(2)])) {
            $0.silent = true
            $0.settings = settings
        }.presentation.suppressSound)
    }

    func testOwnHintsAreStrippedOthersKept() {
        let presentation = decide(NotificationRequest(hints: ["x-focus-sender": .string("a")])).presentation
        XCTAssertFalse(presentation.forwards(hint: "x-focus-sender"))
        XCTAssertFalse(presentation.forwards(hint: "x-focus-interruption-level"))
        XCTAssertTrue(presentation.forwards(hint: "image-data"))
        XCTAssertTrue(presentation.forwards(hint: "x-kde-origin-name"))
        XCTAssertFalse(presentation.forwards(hint: "urgency"), "urgency is set from the level")
    }

    func testActionIconsRemovedWhenTheDaemonLacksThem() {
        let notification = NotificationRequest(hints: ["action-icons": .bool(true)])
        XCTAssertFalse(decide(notification).presentation.forwards(hint: "action-icons"))
        XCTAssertTrue(decide(notification) { $0.capabilities = ["actions", "action-icons"] }.presentation.forwards(hint: "action-icons"))
    }

    func testHiddenPreviews() {
        let notification = NotificationRequest(appName: "Mail", summary: "Secret", body: "Very secret",
                                               hints: ["image-data": .other(signature: "(iiibiiay)"),
                                                       "x-focus-preview-placeholder": .string("New mail")])
        var never = PolicySettings()
        never.general.previews = .never
        let hidden = decide(notification) { $0.settings = never }.presentation
        XCTAssertEqual(hidden.summary, "Mail")
        XCTAssertEqual(hidden.body, "New mail")
        XCTAssertFalse(hidden.forwards(hint: "image-data"))

        var whenUnlocked = PolicySettings()
        var rule = AppRule()
        rule.previews = .whenUnlocked
        whenUnlocked.apps["mail"] = rule
        XCTAssertNil(decide(notification) { $0.settings = whenUnlocked }.presentation.summary, "unlocked: shown")
        let locked = decide(NotificationRequest(appName: "Mail", summary: "S")) {
            $0.settings = whenUnlocked
            $0.screenLocked = true
        }.presentation
        XCTAssertEqual(locked.body, "Notification", "the default placeholder")

        var focus = FocusProfile(name: "Work")
        focus.previews = .never
        XCTAssertNotNil(decide(notification) { $0.activeFocus = focus }.presentation.summary, "a Focus can hide previews")
        var showAll = PolicySettings()
        var always = AppRule()
        always.previews = .always
        showAll.apps["mail"] = always
        XCTAssertNotNil(decide(notification) {
            $0.settings = showAll
            $0.activeFocus = focus
        }.presentation.summary, "the app's setting cannot override a Focus that hides")
    }

    func testDeliveryOrder() {
        var settings = PolicySettings()
        var off = AppRule()
        off.delivery = .off
        settings.apps["Off"] = off
        var summary = AppRule()
        summary.delivery = .summary
        settings.apps["News"] = summary
        settings.summaryTimes = [TimeOfDay(hour: 18, minute: 0)!]

        let offApp = AppIdentity(key: "off", source: .appName)
        XCTAssertEqual(decide(NotificationRequest(hints: ["urgency": .integer(2)]), app: offApp) { $0.settings = settings }.outcome, .dropped)

        var recent = DuplicateTracker()
        recent.delivered(5, appKey: "mail", summary: "S", body: "B", at: now.addingTimeInterval(-60))
        let duplicate = decide(NotificationRequest(summary: "S", body: "B")) { $0.recent = recent }
        XCTAssertEqual(duplicate.outcome, .coalesced)
        XCTAssertEqual(duplicate.replaces, 5)
        XCTAssertEqual(decide(NotificationRequest(summary: "S", body: "B")) {
            $0.recent = recent
            $0.now = self.now.addingTimeInterval(120)
        }.outcome, .delivered, "outside the window")
        XCTAssertEqual(decide(NotificationRequest(summary: "S", body: "other")) { $0.recent = recent }.outcome, .delivered)

        let news = AppIdentity(key: "news", source: .appName)
        XCTAssertEqual(decide(NotificationRequest(), app: news) { $0.settings = settings }.outcome, .heldSummary)
        XCTAssertEqual(decide(NotificationRequest(hints: ["urgency": .integer(2)]), app: news) { $0.settings = settings }.outcome,
                       .delivered, "time-sensitive overrides scheduled delivery")
        XCTAssertEqual(decide(NotificationRequest(hints: ["category": .string("im.received")]), app: news) {
            $0.settings = settings
        }.outcome, .delivered, "communication is not summarised")
        XCTAssertEqual(decide(NotificationRequest(hints: ["value": .integer(40)]), app: news) { $0.settings = settings }.outcome,
                       .delivered, "progress is never held")
        var noTimes = settings
        noTimes.summaryTimes = []
        let optIn = decide(NotificationRequest(), app: news) { $0.settings = noTimes }
        XCTAssertEqual(optIn.outcome, .delivered, "without [summary] times nothing would deliver it: the summary is opt-in")
        XCTAssertTrue(optIn.trace.contains { $0.contains("no [summary] times") }, "\(optIn.trace)")
        XCTAssertEqual(decide(NotificationRequest(hints: ["transient": .bool(true)]), app: news) { $0.settings = settings }.outcome,
                       .delivered, "transient is never held")
    }

    func testTheTraceTellsEveryStep() {
        let trace = decide(NotificationRequest(actions: ["del", "Delete"])).trace
        XCTAssertTrue(trace.first!.hasPrefix("app: Mail"))
        XCTAssertTrue(trace.contains { $0.hasPrefix("level: active (rule 7") })
        XCTAssertTrue(trace.contains { $0.hasPrefix("actions: destructive") })
        XCTAssertEqual(trace.last, "delivery: delivered")
    }

    func testAnAppsTableMatchesTheAppNameOfAnUnsandboxedSender() {
        let esr = NotificationRequest(appName: "Firefox", hints: ["desktop-entry": .string("firefox-esr"), "urgency": .integer(2)])
        let app = AppIdentity.resolve(esr, process: nil)
        var entitled = AppRule()
        entitled.critical = true
        let decision = decide(esr, app: app) { $0.settings.apps["firefox"] = entitled }
        XCTAssertEqual(decision.level, .critical)
        XCTAssertEqual(decision.trace.first,
                       "app: firefox-esr (from the desktop-entry hint); [apps.\"firefox\"] applies (matched the app name)")
        // The key wins over the name.
        let byKey = decide(esr, app: app) {
            $0.settings.apps["firefox"] = entitled
            $0.settings.apps["Firefox-ESR"] = AppRule()
        }
        XCTAssertEqual(byKey.level, .timeSensitive)
        XCTAssertEqual(byKey.trace.first, "app: firefox-esr (from the desktop-entry hint); [apps.\"firefox-esr\"] applies")
    }

    func testASandboxedSendersClaimsReachNoOtherAppsRule() {
        let claim = NotificationRequest(appName: "Firefox", hints: ["desktop-entry": .string("firefox-esr"), "urgency": .integer(2)])
        let app = AppIdentity.resolve(claim, process: ProcessIdentity(processID: 9, flatpakID: "org.example.Intruder"))
        var entitled = AppRule()
        entitled.critical = true
        let decision = decide(claim, app: app) {
            $0.settings.apps["firefox-esr"] = entitled
            $0.settings.apps["Firefox"] = entitled
        }
        XCTAssertEqual(decision.level, .timeSensitive, "another app's critical entitlement is not reached")
        XCTAssertEqual(decision.trace.first, "app: org.example.Intruder (from the Flatpak app ID); "
                       + "it calls itself \"firefox-esr\", which decides nothing; no [apps] rule")
    }
}
