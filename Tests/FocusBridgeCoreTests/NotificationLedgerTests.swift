import FocusBridgeCore
import FocusBridgeTime
import XCTest

/// `NotificationLedger`: every state of an ID's life and every event, with no bus and no store —
/// what the person and the apps would notice, read from the effects: who is told an ID ended
/// (once), what goes to the daemon, what the store is asked to keep.
final class NotificationLedgerTests: XCTestCase {
    private let now = Instant(timeIntervalSince1970: 1_800_000_000)
    private let own = Caller(connection: ":1.1", userID: 1000)
    private let alice = Caller(connection: ":1.10", userID: 1000)
    private let aliceAgain = Caller(connection: ":1.11", userID: 1000)
    private let bob = Caller(connection: ":1.20", userID: 1001)
    private var ledger = NotificationLedger(ownConnection: ":1.1")
    private var nextID: UInt32 = 99

    private func payload(_ text: String) -> HeldPayload { HeldPayload(type: "(s)", bytes: Array(text.utf8)) }

    @discardableResult
    private func apply(_ event: NotificationLedger.Event, at time: Instant? = nil) -> [NotificationLedger.Effect] {
        ledger.transition(event, now: time ?? now, newID: { self.nextID += 1; return self.nextID })
    }

    /// A `Notify` from `caller` planned by the intake against the ledger's state, received.
    @discardableResult
    private func notify(_ summary: String, from caller: Caller? = nil, focus: String? = nil,
                        replacing: UInt32 = 0) -> (plan: Intake, effects: [NotificationLedger.Effect]) {
        var context = PolicyContext(now: now)
        if let focus { context.activeFocus = FocusProfile(name: focus) }
        var request = NotificationRequest(appName: "Shop", summary: summary)
        request.replacesID = replacing
        let plan = Intake.take(request, app: AppIdentity(key: "Shop", source: .appName), caller: caller ?? alice,
                               payloadBytes: 100, context: context, focusName: focus, table: ledger.shown,
                               held: ledger.held.holders(of:), snoozed: ledger.held.snoozedUntil,
                               newID: { self.nextID += 1; return self.nextID })
        let effects = apply(.received(plan, payload: plan.held == nil ? nil : payload(summary)))
        if case .forward = plan.step {
            apply(.forwarded(plan.number, appKey: "Shop", holders: plan.holders, actionKeys: [:]))
        }
        return (plan, effects)
    }

    /// The IDs the effects end, with the reason, in order (`ended` and `endedMany` alike).
    private func ends(_ effects: [NotificationLedger.Effect]) -> [(UInt32, CloseReason)] {
        effects.flatMap { effect -> [(UInt32, CloseReason)] in
            switch effect {
            case .ended(let id, let reason, _): [(id, reason)]
            case .endedMany(let items, let reason): items.map { ($0.id, reason) }
            default: []
            }
        }
    }

    private func endedIDs(_ effects: [NotificationLedger.Effect]) -> [UInt32] { ends(effects).map(\.0) }

    private func replays() -> [(item: HeldNotification, payload: HeldPayload?, cause: String?)] {
        var out: [(item: HeldNotification, payload: HeldPayload?, cause: String?)] = []
        while let next = ledger.nextReplay() { out.append(next) }
        return out
    }

    private func shownPlan(_ cause: String) -> ReplayPlan {
        .shown(Policy.present(NotificationRequest(summary: "x"), app: AppIdentity(key: "Shop", source: .appName),
                              context: PolicyContext(now: now)),
               counts: false, step: FateStep(.replayed, at: now, detail: cause))
    }

    // MARK: Received → shown → ended

    func testAShownOneEndsOnceWithTheDaemonsReasonForEachHolder() {
        let id = notify("Hi").plan.number
        XCTAssertEqual(ledger.shown[id]?.holders, [alice])
        let repeated = notify("Hi again", from: aliceAgain, replacing: id).plan
        XCTAssertEqual(repeated.number, id, "a replacement keeps the ID")
        XCTAssertEqual(ledger.shown[id]?.holders, [alice, aliceAgain])

        let effects = apply(.closed(id, .expired))
        XCTAssertEqual(effects, [.forgetRecent(id), .forgetDaemonID(id), .ended(id, .expired, holders: [alice, aliceAgain])])
        XCTAssertNil(ledger.shown[id])
        XCTAssertEqual(endedIDs(apply(.closed(id, .expired))), [], "a second NotificationClosed ends nothing")
    }

    func testAnAppsCloseAsksTheDaemonOrTheShellAndAnotherUsersIsIgnored() {
        let id = notify("Hi").plan.number
        XCTAssertEqual(apply(.closedByApp(id, by: bob)), [], "someone else's ID is unknown")
        XCTAssertEqual(apply(.closedByApp(id, by: aliceAgain)), [.closeOnDaemon(id)],
                       "the daemon closes it; its NotificationClosed ends the ID")
        XCTAssertNotNil(ledger.shown[id], "alive until the daemon says it closed")

        var gtk = alice
        gtk.door = .gtk
        let gtkID = notify("From GTK", from: gtk).plan.number
        apply(.gtkNamed(gtkID, appKey: "Shop", appID: "org.example.Shop", gtkID: "order-1"))
        XCTAssertEqual(ledger.gtkKeys.id(appKey: "Shop", id: "order-1"), gtkID, "found again by the app's own ID")
        let effects = apply(.closedByApp(gtkID, by: gtk))
        XCTAssertNil(ledger.gtkKeys.id(appKey: "Shop", id: "order-1"), "forgotten as it ends")
        XCTAssertEqual(effects.first, .removeFromShell(gtkID, name: GtkKeys.Name(appID: "org.example.Shop", id: "order-1")),
                       "what the shell knows it by, read before the end forgets it")
        XCTAssertEqual(ends(effects).map(\.0), [gtkID], "GNOME Shell says nothing back: it ends here")
        XCTAssertEqual(ends(effects).map(\.1), [.closedByCall])
    }

    func testAnActionGoesToEveryHolderWithItsOwnKeyAQuickActionAndTheBridgesOwnDoNot() {
        let id = notify("Hi").plan.number
        apply(.forwarded(id, appKey: "Shop", holders: [alice], actionKeys: ["fb-1": "open"]))
        XCTAssertEqual(apply(.action(id, key: "fb-1")), [.actionInvoked(id, key: "open", holders: [alice.connection])])
        guard case .quickAction(.muteHour, let entry)? = apply(.action(id, key: QuickAction.muteHour.key)).first else {
            return XCTFail("a quick action is the bridge's")
        }
        XCTAssertEqual(entry.id, id)
        apply(.forwarded(500, appKey: "FocusBridge", holders: [own], actionKeys: [:]))
        XCTAssertEqual(apply(.action(500, key: "keep")), [.ownAction(500, key: "keep")])
        XCTAssertEqual(apply(.action(12345, key: "open")), [], "an ID that is not shown")
        XCTAssertEqual(apply(.passOn(id, member: "NotificationReplied", text: "ok", isReply: true)),
                       [.passOn(id, member: "NotificationReplied", text: "ok", holders: [alice.connection], acted: true)])
        XCTAssertEqual(apply(.passOn(500, member: "NotificationReplied", text: "ok", isReply: true)),
                       [.passOn(500, member: "NotificationReplied", text: "ok", holders: [own.connection], acted: false)],
                       "a reply to the bridge's own is not an app's outcome")
    }

    // MARK: Held → digest → Show All → shown

    func testHeldThenADigestThenShowAllThenEachShownAsItself() {
        let ids = (0..<3).map { notify("held \($0)", focus: "Work").plan.number }
        XCTAssertEqual(ledger.held.waiting(for: "Work").map(\.id), ids)
        XCTAssertTrue(ids.allSatisfy { ledger.shown[$0] == nil }, "held, not shown")

        let ended = apply(.focusEnded("Work", after: .digest, away: false))
        let digestID = nextID
        XCTAssertTrue(ended.contains { effect in
            if case .storeDigest(let members, digestID) = effect { return Set(members) == Set(ids) }
            return false
        }, "the store notes the digest: \(ended)")
        guard case .sendDigest(digestID, let digest)? = ended.first(where: { if case .sendDigest = $0 { true } else { false } }) else {
            return XCTFail("no digest sent: \(ended)")
        }
        XCTAssertEqual(digest.title, "While Work was on")
        XCTAssertEqual(endedIDs(ended), [], "a digest ends nothing")
        XCTAssertEqual(ledger.held.holders(of: ids[0]), nil, "in a digest: no longer replaced by its sender")
        apply(.forwarded(digestID, appKey: "FocusBridge", holders: [own], actionKeys: [:]))

        let showAll = apply(.digestAction(digestID, key: Digest.showAllKey))
        XCTAssertEqual(showAll, [.feedReplays, .closeOnDaemonNow(digestID)])
        XCTAssertEqual(endedIDs(apply(.closed(digestID, .dismissed))), [digestID],
                       "the digest closing does not end what Show All replays")
        let out = replays()
        XCTAssertEqual(Set(out.map(\.item.id)), Set(ids))
        XCTAssertEqual(out.map(\.cause), ["Show All", "Show All", "Show All"])
        for next in out {
            let effects = apply(.replayed(next.item.id, shownPlan("Show All")))
            XCTAssertTrue(effects.contains(.storeRelease([next.item.id])))
            XCTAssertTrue(effects.contains { if case .forward(next.item, _, false) = $0 { true } else { false } },
                          "forwarded as itself, to its own holders")
            XCTAssertEqual(endedIDs(effects), [], "shown as itself: not ended")
            apply(.forwarded(next.item.id, appKey: "Shop", holders: next.item.holders, actionKeys: [:]))
        }
        XCTAssertEqual(ledger.held.count, 0)
        XCTAssertEqual(ids.map { ledger.shown[$0]?.holders }, [[alice], [alice], [alice]], "each its app's again")
    }

    func testADigestsDismissEndsWhatItStoodForAndADigestClosingEndsTheRestWithItsReason() {
        let ids = (0..<2).map { notify("held \($0)", focus: "Work").plan.number }
        apply(.focusEnded("Work", after: .digest, away: false))
        let digestID = nextID
        apply(.forwarded(digestID, appKey: "FocusBridge", holders: [own], actionKeys: [:]))
        let dismissed = apply(.digestAction(digestID, key: Digest.dismissKey))
        XCTAssertEqual(Set(endedIDs(dismissed)), Set(ids))
        XCTAssertTrue(ends(dismissed).allSatisfy { $0.1 == .dismissed })
        XCTAssertTrue(dismissed.contains(.closeOnDaemonNow(digestID)))

        let more = (0..<2).map { notify("more \($0)", focus: "Work").plan.number }
        apply(.focusEnded("Work", after: .digest, away: false))
        let second = nextID
        apply(.forwarded(second, appKey: "FocusBridge", holders: [own], actionKeys: [:]))
        let closed = apply(.closed(second, .expired))
        XCTAssertEqual(Set(endedIDs(closed)), Set(more + [second]), "the digest's members end with it")
        XCTAssertTrue(ends(closed).allSatisfy { $0.1 == .expired })
        XCTAssertTrue(closed.contains(.ownEnded(second)))
    }

    func testAFocusEndingWithReplayOrNoneAndTheSummary() {
        let replayed = notify("r", focus: "Work").plan.number
        XCTAssertEqual(apply(.focusEnded("Work", after: .replay, away: false)).last, .feedReplays)
        XCTAssertEqual(replays().map { $0.cause }, ["the end of Work"])
        XCTAssertNotNil(ledger.held[replayed], "held until it goes out")

        let dropped = notify("d", focus: "Sleep").plan.number
        let none = apply(.focusEnded("Sleep", after: .none, away: false))
        XCTAssertEqual(ends(none).map(\.0), [dropped])
        XCTAssertEqual(ends(none).map(\.1), [.dismissed])
        XCTAssertNil(ledger.held[dropped])
        XCTAssertEqual(apply(.focusEnded("Nobody", after: .digest, away: false)), [], "nothing held: no digest")
        XCTAssertEqual(apply(.summaryDue), [], "nothing held for the summary: no digest")
    }

    // MARK: Collapsed

    func testWhatAnNMoreCountedEndsWithItAndTheDaemonGoingAwayEndsWhatItShowed() {
        apply(.forwarded(300, appKey: "FocusBridge", holders: [own], actionKeys: [:]))
        apply(.collapsed(301, appKey: "Chat", holders: [alice], into: 300))
        apply(.collapsed(302, appKey: "Chat", holders: [bob], into: 300))
        let closed = apply(.closed(300, .dismissed))
        XCTAssertEqual(endedIDs(closed), [301, 302, 300])
        XCTAssertEqual(closed.first(where: { if case .ended(301, _, let holders) = $0 { holders == [alice] } else { false } }) != nil, true)

        let shown = notify("Hi").plan.number
        let ids = (0..<2).map { notify("held \($0)", focus: "Work").plan.number }
        apply(.focusEnded("Work", after: .digest, away: false))
        let digestID = nextID
        apply(.forwarded(digestID, appKey: "FocusBridge", holders: [own], actionKeys: [:]))
        let gone = apply(.daemonGone([shown, digestID]))
        XCTAssertEqual(Set(endedIDs(gone)), [shown, digestID], "what it showed ends; the digest's members wait again")
        XCTAssertEqual(Set(ledger.held.waiting(for: "Work").map(\.id)), Set(ids))
        XCTAssertTrue(gone.contains { if case .storeDigest(let members, nil) = $0 { Set(members) == Set(ids) } else { false } })
    }

    // MARK: Snoozed

    func testASnoozeLeavesTheScreenUntoldComesBackAsItselfOrHeldAgain() {
        let id = notify("Hi").plan.number
        let until = now.addingTimeInterval(600)
        let item = HeldNotification(id: id, reason: .snooze(until: until), app: "Shop", summary: "Hi", body: "",
                                    level: .active, relevance: 0, received: now, holders: [alice], processID: nil)
        let snoozed = apply(.snoozed(item, payload: payload("Hi")))
        XCTAssertEqual(endedIDs(snoozed), [], "its app is not told")
        XCTAssertTrue(snoozed.contains(.takeOffScreen(id)))
        XCTAssertTrue(snoozed.contains(.storeHold(item, payload("Hi"))))
        XCTAssertNil(ledger.shown[id])
        XCTAssertEqual(ledger.held.snoozedUntil(id), until)

        XCTAssertEqual(apply(.snoozesDue, at: now.addingTimeInterval(599)), [.armSnoozes], "not yet due")
        apply(.snoozeMoved(id, until: now.addingTimeInterval(900)))
        XCTAssertEqual(ledger.held.nextSnoozeEnd, now.addingTimeInterval(900))
        XCTAssertTrue(apply(.snoozesDue, at: now.addingTimeInterval(900)).contains(.feedReplays))
        let next = try! XCTUnwrap(replays().first)
        XCTAssertNil(next.cause, "a snooze's end")
        XCTAssertEqual(next.payload, payload("Hi"), "the arguments the store has not taken yet")
        let again = apply(.replayed(id, .heldAgain(.focus("Work"))))
        XCTAssertTrue(again.contains(.storeReason(id, .focus("Work"))))
        XCTAssertEqual(ledger.held[id]?.reason, .focus("Work"), "held again for the Focus on now")
        XCTAssertEqual(endedIDs(again), [])

        // An app's close of a held one ends it, with reason 3, once.
        XCTAssertEqual(apply(.closedByApp(id, by: bob)), [])
        XCTAssertEqual(ends(apply(.closedByApp(id, by: alice))).map(\.1), [.closedByCall])
        XCTAssertEqual(endedIDs(apply(.closedByApp(id, by: alice))), [])
    }

    func testOnlyAShownOneIsSnoozedAndOnlyASnoozedOneMoved() {
        let item = HeldNotification(id: 77, reason: .snooze(until: now), app: "Shop", summary: "", body: "",
                                    level: .active, relevance: 0, received: now, holders: [alice], processID: nil)
        XCTAssertEqual(apply(.snoozed(item, payload: payload("x"))), [], "not shown: nothing happens")
        XCTAssertNil(ledger.held[77])
        let held = notify("held", focus: "Work").plan.number
        XCTAssertEqual(apply(.snoozeMoved(held, until: now)), [], "held for a Focus, not snoozed")
        XCTAssertEqual(ledger.held[held]?.reason, .focus("Work"))
    }

    // MARK: Show, dismiss

    func testShowDismissAndDismissAll() {
        let ids = (0..<3).map { notify("held \($0)", focus: "Work").plan.number }
        XCTAssertEqual(apply(.show(ids[0])), [.feedReplays])
        XCTAssertEqual(replays().map(\.cause), ["focusctl show"])
        let dismissed = apply(.dismiss(ids[1]))
        XCTAssertEqual(ends(dismissed).map(\.0), [ids[1]])
        XCTAssertEqual(ends(dismissed).map(\.1), [.dismissed])
        XCTAssertEqual(apply(.dismiss(ids[1])), [], "once")
        let all = apply(.dismissAll)
        XCTAssertEqual(Set(endedIDs(all)), [ids[0], ids[2]])
        XCTAssertEqual(apply(.dismissAll), [])
        XCTAssertEqual(apply(.show(ids[0])), [], "nothing held under that ID")
    }

    // MARK: The full disk

    /// Held while the store refuses every write: a replay finds each one's arguments in the
    /// ledger, so nothing acknowledged is dropped; once written, the store has them.
    func testWhatTheStoreHasNotTakenIsReplayedFromMemory() {
        let ids = (0..<3).map { notify("held \($0)", focus: "Work").plan.number }
        XCTAssertEqual(ledger.held.unwrittenCount, 3)
        apply(.written([ids[2]]))
        XCTAssertEqual(ledger.held.unwrittenCount, 2)
        apply(.focusEnded("Work", after: .digest, away: false))
        apply(.digestAction(nextID, key: Digest.showAllKey))
        let out = replays()
        XCTAssertEqual(out.map(\.item.id), ids, "oldest first: the most relevant ends on top")
        XCTAssertEqual(out.map(\.payload), [payload("held 0"), payload("held 1"), nil],
                       "in memory until the store took it; the store's after")
        for next in out { XCTAssertEqual(endedIDs(apply(.replayed(next.item.id, shownPlan("Show All")))), []) }
        XCTAssertEqual(ledger.held.unwrittenCount, 0, "nothing kept for what is no longer held")
    }

    func testAnUnreadableOneEndsOnceWithReasonFour() {
        let id = notify("held", focus: "Work").plan.number
        let effects = apply(.replayed(id, .unreadable))
        XCTAssertEqual(ends(effects).map(\.1), [.undefined])
        XCTAssertEqual(endedIDs(apply(.replayed(id, .unreadable))), [])
    }

    // MARK: What holds

    /// Random events over a few IDs: an ID is never both held and shown, and no ID is told it
    /// ended twice without being received again in between.
    func testNoIDIsBothHeldAndShownAndNoneEndsTwice() {
        var generator = SystemRandomNumberGenerator()
        var endedOnce: Set<UInt32> = []
        for _ in 0..<2_000 {
            let id = UInt32.random(in: 100...110, using: &generator)
            let events: [NotificationLedger.Event] = [
                .closed(id, .expired), .closedByApp(id, by: alice), .dismiss(id), .show(id),
                .snoozeMoved(id, until: now), .replayed(id, shownPlan("x")), .replayed(id, .unreadable),
                .snoozesDue, .dismissAll,
                .focusEnded("Work", after: .digest, away: false), .daemonGone([id]),
            ]
            var effects: [NotificationLedger.Effect]
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                let plan = notify("n", focus: Bool.random(using: &generator) ? "Work" : nil, replacing: id)
                effects = plan.effects
                endedOnce.remove(plan.plan.number)
            default:
                effects = apply(events.randomElement(using: &generator)!)
                _ = replays()
            }
            for ended in endedIDs(effects) {
                XCTAssertFalse(endedOnce.contains(ended), "ID \(ended) ended twice")
                endedOnce.insert(ended)
            }
            for id in UInt32(100)...110 {
                XCTAssertFalse(ledger.shown[id] != nil && ledger.held[id] != nil, "ID \(id) is both shown and held")
            }
        }
    }

    /// focusctl and the bridge refuse the same lengths with the same sentence.
    func testASnoozeLastsFromASecondToAWeek() {
        for seconds: Double in [1, 60, SnoozeLength.standard, 7 * 86_400] { XCTAssertNil(SnoozeLength.problem(seconds), "\(seconds)") }
        for seconds: Double in [0, 0.5, -1, 7 * 86_400 + 1, .infinity, .nan] {
            XCTAssertEqual(SnoozeLength.problem(seconds), "a snooze lasts from one second to a week (7d)", "\(seconds)")
        }
    }

    /// A drop ends as its ID is answered: through the ledger too, its GTK name forgotten.
    func testADropsEndIsTheLedgersAndForgetsItsGtkName() {
        apply(.gtkNamed(42, appKey: "Shop", appID: "org.example.Shop", gtkID: "muted"))
        XCTAssertEqual(apply(.endedAtOnce(42, .dismissed, holders: [alice])), [.ended(42, .dismissed, holders: [alice])])
        XCTAssertNil(ledger.gtkKeys.id(appKey: "Shop", id: "muted"))
        XCTAssertEqual(ledger.gtkKeys.count, 0)
    }

    /// Past the most holders one ID may have, the oldest is told it ended; the ID lives on, and
    /// its GTK app still finds it by its own name.
    func testAnIDWhoseOldestHolderIsLetGoKeepsItsGtkName() {
        apply(.gtkNamed(60, appKey: "Shop", appID: "org.example.Shop", gtkID: "cart"))
        for n in 0...NotificationTable.maxHolders {
            let effects = apply(.forwarded(60, appKey: "Shop", holders: [Caller(connection: ":1.\(100 + n)", userID: 1000)],
                                           actionKeys: [:]))
            XCTAssertEqual(endedIDs(effects), n < NotificationTable.maxHolders ? [] : [60], "the oldest holder let go")
        }
        XCTAssertNotNil(ledger.shown[60])
        XCTAssertEqual(ledger.gtkKeys.id(appKey: "Shop", id: "cart"), 60, "alive: still found by its name")
    }
}
