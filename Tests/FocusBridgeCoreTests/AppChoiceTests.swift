import FocusBridgeCore
import FocusBridgeTime
import Foundation
import XCTest

/// Run-time choices, mutes, quick actions and marketing in the decision (focusctl(1), APPS and
/// MUTE; focus-bridge.toml(5), QUICK ACTIONS and MARKETING).
final class AppChoiceTests: XCTestCase {
    private let app = AppIdentity(key: "Slack", source: .appName)
    private let now = Instant(timeIntervalSince1970: 1_800_000_000)
    private let urgent = NotificationRequest(hints: ["urgency": .integer(2)])

    private func decide(_ notification: NotificationRequest, _ change: (inout PolicyContext) -> Void = { _ in }) -> Decision {
        var context = PolicyContext(now: now)
        change(&context)
        return Policy.decide(notification, app: app, context: context)
    }

    private func configured(_ rule: (inout AppRule) -> Void) -> PolicySettings {
        var settings = PolicySettings()
        var appRule = AppRule()
        rule(&appRule)
        settings.apps["slack"] = appRule
        return settings
    }

    // MARK: Precedence: default, config, choice

    func testAChoiceWinsOverTheConfigurationUntilReset() {
        XCTAssertEqual(decide(urgent).level, .timeSensitive, "the default: urgency critical is time-sensitive")
        let file = configured { $0.timeSensitive = true; $0.origins["time-sensitive"] = .config(line: 3) }
        var choices = AppChoices()
        choices.set(.init(app: "SLACK", choice: .timeSensitive(false), made: now))
        let chosen = decide(urgent) { $0.settings = file; $0.choices = choices }
        XCTAssertEqual(chosen.level, .active)
        XCTAssertTrue(chosen.trace.contains { $0.hasPrefix("choice: time-sensitive off for Slack") && $0.contains("reset time-sensitive") },
                      chosen.trace.joined(separator: "\n"))
        XCTAssertTrue(chosen.trace.contains("level: Time Sensitive is turned off for the app (a choice) → active"))

        XCTAssertEqual(choices.reset(app: "slack", key: .delivery), [], "resetting a key without a choice changes nothing")
        XCTAssertEqual(choices.reset(app: "slack", key: .timeSensitive).map(\.choice), [.timeSensitive(false)])
        XCTAssertEqual(decide(urgent) { $0.settings = file; $0.choices = choices }.level, .timeSensitive, "the file's again")
    }

    func testChoiceValuesAreCheckedWithOneSentence() {
        XCTAssertEqual(try AppChoice.parse(key: .delivery, value: "Summary").get(), .delivery(.summary))
        guard case .failure(let error) = AppChoice.parse(key: .timeSensitive, value: "maybe") else { return XCTFail() }
        XCTAssertEqual(error.description, "`time-sensitive` is on or off, not \"maybe\"")
        guard case .failure = AppChoice.parse(key: .delivery, value: "later") else { return XCTFail() }
    }

    /// `focusctl app NAME level LEVEL`: the level forced as `[apps] level` forces it (critical
    /// still needs the entitlement), its trace saying it is a choice.
    func testALevelChoiceForcesTheLevel() {
        XCTAssertEqual(try AppChoice.parse(key: .level, value: "Passive").get(), .level(.passive))
        guard case .failure(let error) = AppChoice.parse(key: .level, value: "loud") else { return XCTFail() }
        XCTAssertEqual(error.description, "`level` is one of passive, active, time-sensitive, critical, not \"loud\"")
        var choices = AppChoices()
        choices.set(.init(app: "Slack", choice: .level(.passive), made: now))
        let quiet = decide(urgent) { $0.choices = choices }
        XCTAssertEqual(quiet.level, .passive)
        XCTAssertTrue(quiet.trace.contains { $0.hasPrefix("choice: level passive for Slack") }, quiet.trace.joined(separator: "\n"))
        choices.set(.init(app: "Slack", choice: .level(.critical), made: now))
        XCTAssertEqual(decide(NotificationRequest()) { $0.choices = choices }.level, .timeSensitive, "no entitlement")
    }

    func testChoicesAreBounded() {
        var choices = AppChoices()
        for index in 0...AppChoices.maxApps {
            choices.set(.init(app: "app\(index)", choice: .marketing(true), made: now.addingTimeInterval(Double(index))))
        }
        XCTAssertEqual(choices.all.count, AppChoices.maxApps)
        XCTAssertNil(choices.choice(.marketing, for: "app0"), "the oldest gave way")
        XCTAssertNotNil(choices.choice(.marketing, for: "app\(AppChoices.maxApps)"))
    }

    // MARK: Mute

    func testAMutedAppIsRecordedNotShownButCriticalBreaksThrough() {
        var mutes = MuteList()
        mutes.mute("slack", until: now.addingTimeInterval(3600))
        let muted = decide(NotificationRequest(summary: "hi")) { $0.mutes = mutes }
        XCTAssertEqual(muted.outcome, .muted)
        XCTAssertTrue(muted.trace.last!.contains("focusctl unmute Slack"))
        let entitled = configured { $0.critical = true }
        let critical = decide(urgent) { $0.mutes = mutes; $0.settings = entitled }
        XCTAssertEqual(critical.level, .critical)
        XCTAssertEqual(critical.outcome, .delivered)
        XCTAssertEqual(decide(NotificationRequest(summary: "hi")) { $0.mutes = mutes; $0.now = self.now.addingTimeInterval(3600) }.outcome,
                       .delivered, "a mute ends on time")
        // The intake ends a muted notification's ID at once, as a dropped one's.
        let intake = Intake.take(NotificationRequest(summary: "hi"), app: app, caller: Caller(connection: ":1.1", userID: 1000),
                                 payloadBytes: 10, context: PolicyContext(now: now, mutes: mutes), focusName: nil,
                                 table: NotificationTable(), held: { _ in nil }, newID: { 1 })
        XCTAssertEqual(intake.step, .drop(endsAtOnce: true))
    }

    func testMutesExpireAndAreBounded() {
        var mutes = MuteList()
        mutes.mute("a", until: now.addingTimeInterval(10))
        mutes.mute("b", until: now.addingTimeInterval(20))
        XCTAssertEqual(mutes.nextEnd, now.addingTimeInterval(10))
        XCTAssertEqual(mutes.expire(at: now.addingTimeInterval(15)).map(\.app), ["a"])
        XCTAssertEqual(mutes.active(at: now).map(\.app), ["b"])
        for index in 0...MuteList.maxMutes { mutes.mute("x\(index)", until: now.addingTimeInterval(100 + Double(index))) }
        XCTAssertEqual(mutes.active(at: now).count, MuteList.maxMutes)
    }

    // MARK: Quick actions

    func testQuickActionsComeAfterTheAppsOwnWhereThereIsRoom() {
        let plain = decide(NotificationRequest(actions: ["default", "Open"]))
        XCTAssertEqual(plain.actions.actions.map(\.key), ["default", QuickAction.muteHour.key])
        let urgentWithButtons = decide(NotificationRequest(actions: ["reply", "Reply", "later", "Later", "inline-reply", ""],
                                                           hints: ["urgency": .integer(2)]))
        XCTAssertEqual(urgentWithButtons.actions.actions.map(\.key),
                       ["reply", "later", QuickAction.muteHour.key, QuickAction.turnOffTimeSensitive.key, "inline-reply"])
        let full = decide(NotificationRequest(actions: ["a", "A", "b", "B", "c", "C"], hints: ["urgency": .integer(2)]))
        XCTAssertEqual(full.actions.actions.map(\.key), ["a", "b", "c", QuickAction.muteHour.key], "never a slot the app needs")
        XCTAssertTrue(full.trace.contains { $0.contains("no room for \"Turn Off Time Sensitive\"") })
        let gnome = decide(NotificationRequest(actions: ["a", "A", "b", "B", "c", "C"])) { $0.daemonButtonLimit = 3 }
        XCTAssertEqual(gnome.actions.actions.map(\.key), ["a", "b", "c"])
        XCTAssertEqual(decide(NotificationRequest()) { $0.capabilities = ["body"] }.actions.actions, [], "a daemon without actions")
        var none = PolicySettings()
        none.general.quickActions = []
        XCTAssertEqual(decide(NotificationRequest()) { $0.settings = none }.actions.actions, [])
        let perApp = configured { $0.quickActions = [] }
        XCTAssertEqual(decide(NotificationRequest()) { $0.settings = perApp }.actions.actions, [])
        let entitled = configured { $0.critical = true }
        XCTAssertEqual(decide(urgent) { $0.settings = entitled }.actions.actions, [], "nothing to mute on critical")
    }

    func testAnAppCannotSendAQuickActionKey() {
        let decision = decide(NotificationRequest(actions: [QuickAction.muteHour.key, "Mute"]))
        XCTAssertEqual(decision.actions.actions.filter { $0.key == QuickAction.muteHour.key }.map(\.label), ["Mute 1 Hour"])
        XCTAssertTrue(decision.trace.contains { $0.contains("is a key of the bridge's own quick actions; dropped") })
    }

    // MARK: Marketing

    func testMarketingIsDroppedUnlessAllowedThenPassiveAndSummarised() {
        let marketing = NotificationRequest(summary: "50% off", hints: ["x-focus-marketing": .bool(true), "urgency": .integer(2)])
        XCTAssertEqual(decide(marketing).outcome, .dropped)
        let byCategory = NotificationRequest(hints: ["category": .string("x-focus.marketing.sale")])
        XCTAssertEqual(decide(byCategory).outcome, .dropped)
        var choices = AppChoices()
        choices.set(.init(app: "Slack", choice: .marketing(true), made: now))
        let allowed = decide(marketing) { $0.choices = choices }
        XCTAssertEqual(allowed.level, .passive, "never more than passive")
        XCTAssertEqual(allowed.outcome, .delivered, "no summary times and no Focus: shown, quietly")
        var summary = PolicySettings()
        summary.summaryTimes = [TimeOfDay("18:00")!]
        XCTAssertEqual(decide(marketing) { $0.choices = choices; $0.settings = summary }.outcome, .heldSummary)
        var focus = FocusProfile(name: "work")
        focus.apps = .allowOnly(["Slack"])
        XCTAssertEqual(decide(marketing) { $0.choices = choices; $0.activeFocus = focus }.outcome, .heldFocus,
                       "never breaks through a Focus, even one that allows the app")
    }
}

extension AppChoiceTests {
    /// dunst runs a notification's only action on a middle click: a quick action never becomes
    /// that action, nor turns the click on a one-action notification into a menu.
    func testOnDunstAQuickActionNeverChangesWhatTheClickDoes() {
        func keys(_ actions: [String]) -> [String] {
            var context = PolicyContext(now: Instant(timeIntervalSince1970: 1_800_000_000))
            context.clickRunsSoleAction = true
            return Policy.decide(NotificationRequest(actions: actions), app: AppIdentity(key: "A", source: .appName), context: context)
                .actions.actions.map(\.key)
        }
        XCTAssertEqual(keys([]), [])
        XCTAssertEqual(keys(["snooze", "Snooze"]), ["snooze"])
        XCTAssertEqual(keys(["default", ""]), ["default", QuickAction.muteHour.key], "the click runs the default")
        XCTAssertEqual(keys(["a", "A", "b", "B"]), ["a", "b", QuickAction.muteHour.key], "the click opens the menu anyway")
    }
}
