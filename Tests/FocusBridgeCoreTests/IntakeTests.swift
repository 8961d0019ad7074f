import FocusBridgeCore
import FocusBridgeTime
import Foundation
import XCTest

/// `Intake.take`: the ID, the holders and the step of one `Notify`, with no I/O.
final class IntakeTests: XCTestCase {
    private let now = Instant(timeIntervalSince1970: 1_800_000_000)
    private let app = AppIdentity(key: "Mail", source: .appName)
    private let alice = Caller(connection: ":1.10", userID: 1000)
    private let aliceAgain = Caller(connection: ":1.11", userID: 1000)
    private let bob = Caller(connection: ":1.20", userID: 1001)

    private func take(_ notification: NotificationRequest = NotificationRequest(summary: "Hi"), caller: Caller? = nil,
                      payloadBytes: Int = 100, table: NotificationTable = NotificationTable(),
                      held: [UInt32: [Caller]] = [:], snoozed: [UInt32: Instant] = [:], focusName: String? = nil,
                      _ change: (inout PolicyContext) -> Void = { _ in }) -> Intake {
        var context = PolicyContext(now: now)
        change(&context)
        return Intake.take(notification, app: app, caller: caller ?? alice, payloadBytes: payloadBytes,
                           context: context, focusName: focusName, table: table, held: { held[$0] },
                           snoozed: { snoozed[$0] }, newID: { self.nextID += 1; return self.nextID })
    }

    /// The IDs the intake asked for: a new one only for a notification that gets one.
    private var nextID: UInt32 = 99

    private func focus(_ context: inout PolicyContext) {
        context.activeFocus = FocusProfile(name: "Work")
    }

    func testANewNotificationIsForwardedUnderANewIDAndCounts() {
        let intake = take(NotificationRequest(summary: "Hi", body: "there"))
        XCTAssertEqual(intake.id, .new)
        XCTAssertEqual(intake.number, 100, "a new ID from the allocator")
        XCTAssertEqual(intake.holders, [alice])
        XCTAssertEqual(intake.step, .forward(counts: true))
        XCTAssertFalse(intake.replacesHeld)
        XCTAssertNil(intake.held)
        XCTAssertEqual(intake.shown, intake.decision.shown)
        // The history row is the plan's: the ID answered, the decision, the texts, the time.
        XCTAssertEqual(intake.history.id, 100)
        XCTAssertEqual(intake.history.app, "Mail")
        XCTAssertEqual(intake.history.summary, "Hi")
        XCTAssertEqual(intake.history.body, "there")
        XCTAssertEqual(intake.history.decision, .delivered)
        XCTAssertEqual(intake.history.level, intake.decision.level)
        XCTAssertEqual(intake.history.received, now)
        XCTAssertEqual(intake.history.kept?.trace, intake.decision.trace)
    }

    func testAFocusHoldsForItsName() {
        let intake = take(focusName: "Work") {
            self.focus(&$0)
            $0.senderProcessID = 4242
        }
        XCTAssertEqual(intake.decision.outcome, .heldFocus)
        XCTAssertEqual(intake.step, .hold(.focus("Work")))
        XCTAssertEqual(intake.id, .new)
        // The held item is the plan's, under the ID answered, for every holder.
        XCTAssertEqual(intake.held?.id, intake.number)
        XCTAssertEqual(intake.held?.reason, .focus("Work"))
        XCTAssertEqual(intake.held?.holders, [alice])
        XCTAssertEqual(intake.held?.processID, 4242)
        XCTAssertEqual(intake.held?.received, now)
        XCTAssertEqual(intake.history.decision, .heldFocus)
        XCTAssertEqual(intake.history.kept?.focus, "Work")
    }

    func testTooHeavyToHoldIsForwardedNow() {
        let intake = take(payloadBytes: HeldNotification.maxPayloadBytes + 1, focusName: "Work", focus)
        XCTAssertTrue(intake.tooHeavyToHold)
        XCTAssertEqual(intake.decision.outcome, .delivered)
        XCTAssertEqual(intake.step, .forward(counts: true))
    }

    func testAnUpdateOfWhatIsShownStaysShownUnderItsID() {
        var table = NotificationTable()
        table.track(7, appKey: "Mail", holder: alice)
        let intake = take(NotificationRequest(replacesID: 7, summary: "Hi"), caller: aliceAgain, table: table,
                          focusName: "Work", focus)
        XCTAssertEqual(intake.decision.outcome, .delivered)
        XCTAssertEqual(intake.id, .existing(7))
        XCTAssertEqual(intake.number, 7)
        XCTAssertEqual(intake.history.id, 7)
        XCTAssertEqual(nextID, 99, "no new ID is taken for an update")
        XCTAssertEqual(intake.step, .forward(counts: false), "an update does not count toward the rate limit")
    }

    func testAnotherUsersIDIsNotReplaced() {
        var table = NotificationTable()
        table.track(7, appKey: "Mail", holder: alice)
        let intake = take(NotificationRequest(replacesID: 7, summary: "Hi"), caller: bob, table: table)
        XCTAssertEqual(intake.id, .new)
        XCTAssertEqual(intake.holders, [bob])
    }

    func testReplacingAHeldOneKeepsItsHoldersAndReleasesIt() {
        let held: [UInt32: [Caller]] = [9: [alice]]
        let intake = take(NotificationRequest(replacesID: 9, summary: "Hi"), caller: aliceAgain, held: held)
        XCTAssertEqual(intake.id, .existing(9))
        XCTAssertEqual(intake.holders, [alice, aliceAgain])
        XCTAssertTrue(intake.replacesHeld)
        XCTAssertEqual(intake.step, .forward(counts: false))

        let again = take(NotificationRequest(replacesID: 9, summary: "Hi"), caller: aliceAgain, held: held,
                         focusName: "Work", focus)
        XCTAssertEqual(again.step, .hold(.focus("Work")), "held again in its place")
        XCTAssertFalse(again.replacesHeld)

        let stranger = take(NotificationRequest(replacesID: 9, summary: "Hi"), caller: bob, held: held)
        XCTAssertEqual(stranger.id, .new, "one ownership rule for held and shown")
        XCTAssertFalse(stranger.replacesHeld)
    }

    func testAnUpdateOfASnoozedOneWaitsWithItUnlessItIsDropped() {
        let held: [UInt32: [Caller]] = [9: [alice]]
        let until = now.addingTimeInterval(3600)
        let update = take(NotificationRequest(replacesID: 9, summary: "Hi again"), caller: aliceAgain, held: held,
                          snoozed: [9: until])
        XCTAssertEqual(update.id, .existing(9))
        XCTAssertEqual(update.step, .hold(.snooze(until: until)), "the person asked not to see it before then")
        XCTAssertEqual(update.held?.reason, .snooze(until: until))
        XCTAssertEqual(update.held?.summary, "Hi again")
        XCTAssertFalse(update.replacesHeld, "held again in its place, not released")
        XCTAssertEqual(update.history.steps.map(\.kind), ["snoozed"])
        XCTAssertTrue(update.decision.trace.contains { $0.contains("kept snoozed") })

        let underFocus = take(NotificationRequest(replacesID: 9, summary: "Hi"), caller: aliceAgain, held: held,
                              snoozed: [9: until], focusName: "Work", focus)
        XCTAssertEqual(underFocus.step, .hold(.snooze(until: until)), "its snooze ends first; the Focus is asked then")

        let stranger = take(NotificationRequest(replacesID: 9, summary: "Hi"), caller: bob, held: held, snoozed: [9: until])
        XCTAssertEqual(stranger.id, .new, "another user's notification is not theirs to update")
        XCTAssertEqual(stranger.step, .forward(counts: false))

        var off = AppRule()
        off.delivery = .off
        let dropped = take(NotificationRequest(replacesID: 9, summary: "Hi"), caller: aliceAgain, held: held,
                           snoozed: [9: until]) { $0.settings.apps["mail"] = off }
        XCTAssertEqual(dropped.step, .drop(endsAtOnce: true), "an app turned off since ends it, snoozed or not")
    }

    func testADuplicateFromTheSameSenderCoalescesFromAnotherIsItsOwn() {
        var table = NotificationTable()
        table.track(5, appKey: "Mail", holder: alice)
        let repeated: (inout PolicyContext) -> Void = {
            $0.recent.delivered(5, appKey: "Mail", summary: "Hi", body: "", at: self.now)
        }
        let same = take(caller: aliceAgain, table: table, repeated)
        XCTAssertEqual(same.decision.outcome, .coalesced)
        XCTAssertEqual(same.id, .existing(5))
        XCTAssertEqual(same.step, .forward(counts: false))

        let other = take(caller: bob, table: table, repeated)
        XCTAssertEqual(other.decision.outcome, .delivered)
        XCTAssertNil(other.decision.replaces)
        XCTAssertEqual(other.id, .new)
    }

    func testAnAppTurnedOffEndsAtOnceUnlessItReplacesWhatIsShown() {
        var settings = PolicySettings()
        var off = AppRule()
        off.delivery = .off
        settings.apps["mail"] = off
        let dropped = take { $0.settings = settings }
        XCTAssertEqual(dropped.step, .drop(endsAtOnce: true))
        XCTAssertEqual(dropped.dropReason, .dismissed)
        XCTAssertNil(dropped.held)
        var table = NotificationTable()
        table.track(7, appKey: "Mail", holder: alice)
        XCTAssertEqual(take(NotificationRequest(replacesID: 7, summary: "Hi"), table: table) { $0.settings = settings }.step,
                       .drop(endsAtOnce: false))
    }

    func testOverTheRateLimitCollapses() {
        let intake = take {
            $0.flood = FloodGate(limit: 1, window: 10)
            $0.flood.delivered("Mail", at: self.now)
        }
        XCTAssertEqual(intake.step, .collapse)
        XCTAssertEqual(intake.id, .new)
    }

    func testOwnNotificationsArePresentedWithoutAFocusOrDeliveryRules() {
        var context = PolicyContext(now: now)
        var work = FocusProfile(name: "Work")
        work.previews = .never
        context.activeFocus = work
        let request = NotificationRequest(appName: "FocusBridge", summary: "Notification Summary", body: "Mail — Hi",
                                          actions: ["show-all", "Show All", "dismiss", "Dismiss"])
        let own = AppIdentity(key: "FocusBridge", source: .appName)
        let shown = Policy.present(request, app: own, context: context)
        XCTAssertNil(shown.presentation.summary, "a Focus's previews do not hide the bridge's own notifications")
        XCTAssertFalse(shown.actions.actions.contains { $0.key.hasPrefix(QuickAction.keyPrefix) }, "no quick actions on its own")
        var plain = context
        plain.activeFocus = nil
        plain.settings.general.quickActions = []
        XCTAssertEqual(shown, Policy.decide(request, app: own, context: plain).shown,
                       "the same as a decision shows it, but for the quick actions")
    }

    func testASandboxedSenderClaimingAnAllowedAppsNameIsHeld() {
        var context = PolicyContext(now: now)
        context.activeFocus = FocusProfile(name: "Work")
        context.activeFocus?.apps = .allowOnly(["notify-send"])
        let claim = NotificationRequest(appName: "notify-send", summary: "Hi")
        let sandboxed = Caller(connection: ":1.30", userID: 1000, sandbox: "flatpak:org.example.Intruder")
        let intake = Intake.take(claim, app: AppIdentity.resolve(claim, process: ProcessIdentity(processID: 9, flatpakID: "org.example.Intruder")),
                                 caller: sandboxed, payloadBytes: 100, context: context, focusName: "Work",
                                 table: NotificationTable(), held: { _ in nil }, newID: { 7 })
        XCTAssertEqual(intake.step, .hold(.focus("Work")))
        XCTAssertEqual(intake.history.app, "org.example.Intruder")
        XCTAssertEqual(intake.history.kept?.appName, "notify-send", "what it claimed is kept")
        XCTAssertEqual(intake.history.kept?.appSource, "Flatpak app ID")
        // The same name from an unsandboxed sender is allowed.
        let allowed = Intake.take(claim, app: AppIdentity.resolve(claim, process: nil), caller: alice, payloadBytes: 100,
                                  context: context, focusName: "Work", table: NotificationTable(), held: { _ in nil },
                                  newID: { 8 })
        XCTAssertEqual(allowed.step, .forward(counts: true))
    }

    // MARK: Web pages: sites as apps, "keep it on screen"

    /// Chromium's call for a page of `site`, as Chromium makes it; with `requireInteraction`,
    /// urgency 2 and expire timeout 0.
    private func page(_ site: String, keepOnScreen: Bool = false) -> NotificationRequest {
        NotificationRequest(appName: "Chromium", summary: "From \(site)",
                            body: "<a href=\"http://\(site)/\">\(site)</a>\n\nThe page's text",
                            actions: ["default", "Activate", "settings", "Settings"],
                            hints: ["desktop-entry": .string("chromium"), "urgency": .integer(keepOnScreen ? 2 : 1)],
                            expireTimeout: keepOnScreen ? 0 : 25000)
    }

    private func takePage(_ notification: NotificationRequest, _ change: (inout PolicyContext) -> Void = { _ in }) -> Intake {
        var context = PolicyContext(now: now)
        change(&context)
        return Intake.take(notification, app: AppIdentity.resolve(notification, process: nil), caller: alice,
                           payloadBytes: 100, context: context, focusName: context.activeFocus?.name,
                           table: NotificationTable(), held: { _ in nil }, newID: { 7 })
    }

    func testAPageIsItsSitesWithItsBrowserBeside() {
        let intake = takePage(page("app.slack.com"))
        XCTAssertEqual(intake.history.app, "app.slack.com")
        XCTAssertEqual(intake.history.via, "chromium")
        XCTAssertEqual(intake.history.body, "<a href=\"http://app.slack.com/\">app.slack.com</a>\n\nThe page's text",
                       "the page's own text, site line and all")
        XCTAssertEqual(intake.history.kept?.appSource, "site of the web page")
        XCTAssertEqual(intake.decision.trace.first, "app: app.slack.com (from the site of the web page, via chromium); no [apps] rule")
        XCTAssertNil(takePage(NotificationRequest(appName: "Mail", summary: "Hi")).history.via)
    }

    func testAFocusHoldsOneSiteAndAllowsAnother() {
        let focus: (inout PolicyContext) -> Void = {
            $0.activeFocus = FocusProfile(name: "Work")
            $0.activeFocus?.apps = .allowOnly(["app.slack.com"])
        }
        XCTAssertEqual(takePage(page("app.slack.com"), focus).step, .forward(counts: true))
        XCTAssertEqual(takePage(page("127.0.0.1:8123"), focus).step, .hold(.focus("Work")))
        // The browser's own key allows what has no site, not its pages.
        let browser: (inout PolicyContext) -> Void = {
            $0.activeFocus = FocusProfile(name: "Work")
            $0.activeFocus?.apps = .allowOnly(["chromium"])
        }
        XCTAssertEqual(takePage(page("127.0.0.1:8123"), browser).step, .hold(.focus("Work")))
        var own = page("x")
        own.body = "Download complete"
        XCTAssertEqual(takePage(own, browser).step, .forward(counts: true))
    }

    func testASitesTableMuteAndChoiceAreItsOwn() {
        let rules: (inout PolicyContext) -> Void = {
            var off = AppRule()
            off.delivery = .off
            $0.settings.apps["app.slack.com"] = off
            $0.settings.apps["Chromium"] = AppRule()
            $0.settings.apps["Chromium"]?.critical = true
            $0.mutes = MuteList([MuteList.Mute(app: "127.0.0.1:8123", until: self.now + 3600)])
        }
        XCTAssertEqual(takePage(page("app.slack.com"), rules).decision.outcome, .dropped)
        XCTAssertEqual(takePage(page("127.0.0.1:8123"), rules).decision.outcome, .muted)
        let other = takePage(page("example.org", keepOnScreen: true), rules)
        XCTAssertEqual(other.decision.outcome, .delivered)
        XCTAssertEqual(other.decision.level, .active, "the browser's entitlement is not its pages'")
    }

    func testKeepItOnScreenIsActiveAndForwardedWithUrgencyTwo() {
        let intake = takePage(page("app.slack.com", keepOnScreen: true))
        XCTAssertEqual(intake.decision.level, .active)
        XCTAssertEqual(intake.shown.presentation.urgency, 2, "it stays on screen where only critical ones do")
        XCTAssertFalse(intake.shown.presentation.suppressSound)
        XCTAssertTrue(intake.decision.trace.contains(
            "level: active (rule 5: urgency critical from a web page asks to keep it on screen (requireInteraction), which is not time-sensitive)"),
                      "\(intake.decision.trace)")
        XCTAssertFalse(intake.decision.actions.actions.contains { $0.key.hasSuffix("turn-off-time-sensitive") },
                       "no Time Sensitive question or quick action for it")
        // Not time-sensitive, so a Focus holds it; the page's ordinary notification is urgency 1.
        let held = takePage(page("app.slack.com", keepOnScreen: true)) { $0.activeFocus = FocusProfile(name: "Work") }
        XCTAssertEqual(held.step, .hold(.focus("Work")))
        XCTAssertEqual(takePage(page("app.slack.com")).shown.presentation.urgency, 1)
        // Silent mode takes its sound, not its place on screen.
        let silent = takePage(page("app.slack.com", keepOnScreen: true)) { $0.silent = true }
        XCTAssertEqual(silent.shown.presentation.urgency, 2)
        XCTAssertTrue(silent.shown.presentation.suppressSound)
    }

    func testASiteEntitledOrSetOtherwiseGetsWhatItIsGiven() {
        let entitled = takePage(page("app.slack.com", keepOnScreen: true)) {
            $0.settings.apps["app.slack.com"] = AppRule()
            $0.settings.apps["app.slack.com"]?.critical = true
        }
        XCTAssertEqual(entitled.decision.level, .critical)
        let passive = takePage(page("app.slack.com", keepOnScreen: true)) {
            $0.settings.apps["app.slack.com"] = AppRule()
            $0.settings.apps["app.slack.com"]?.level = .passive
        }
        XCTAssertEqual(passive.decision.level, .passive)
        XCTAssertEqual(passive.shown.presentation.urgency, 0)
        let urgent = takePage(page("app.slack.com", keepOnScreen: true)) {
            $0.settings.apps["app.slack.com"] = AppRule()
            $0.settings.apps["app.slack.com"]?.level = .timeSensitive
        }
        XCTAssertEqual(urgent.decision.level, .timeSensitive)
        XCTAssertEqual(urgent.shown.presentation.urgency, 2)
        // Urgency 2 from anything but a web page is still time-sensitive, the browser's own included.
        var own = page("x", keepOnScreen: true)
        own.body = "Update available"
        XCTAssertEqual(takePage(own).decision.level, .timeSensitive)
    }
}
