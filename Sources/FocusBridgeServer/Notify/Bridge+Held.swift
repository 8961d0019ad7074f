import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeStore
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// What becomes of held notifications later: a Focus ending, the scheduled summary, a digest's
/// Show All or Dismiss (focus-bridge(1), BEHAVIOUR) — each a transition of the ledger. Digests
/// are the bridge's own notifications, shown as `Policy.present` says, held by the bridge itself.
extension Bridge {
    /// Replays go into the forward queue only while it is this short, so a Show All of a
    /// hundred thousand never overruns the queue's bound.
    static let replayQueueRoom = 512

    /// A Focus ended: what it held goes out as `after-focus` says.
    /// `away`: it was on while the screen was locked (its digest says so).
    func focusEnded(_ name: String, away: Bool = false) {
        askPendingQuestions()
        perform(ledger.transition(.focusEnded(name, after: settings.general.afterFocus, away: away), now: clock.now,
                                  newID: newID))
    }

    /// Items held for a Focus that is no longer on (it ended while the bridge was stopped).
    func focusesEnded(besides active: String?) {
        for name in ledger.held.focusNames(besides: active).sorted() { focusEnded(name) }
    }

    /// Delivers the scheduled summary now; returns how many notifications it holds.
    @discardableResult
    func deliverSummary() -> Int {
        let count = ledger.held.waitingCount(.heldSummary)
        perform(ledger.transition(.summaryDue, now: clock.now, newID: newID))
        return count
    }

    /// Sends one of the bridge's own notifications (a digest, a question), active, held by the bridge.
    func sendOwn(_ id: UInt32, title: String, body: String, actions: [String]) {
        record(HistoryEntry(id: id, app: Self.ownAppName, summary: title, body: body, level: .active,
                            decision: .delivered, received: clock.now))
        let arguments = NotifyArguments.own(appName: Self.ownAppName,
                                            appIcon: "preferences-system-notifications",
                                            summary: title, body: body, actions: actions)
        let app = AppIdentity(key: Self.ownAppName, source: .appName)
        let shown = OwnNotification.shown(.asking, arguments.request, app: app, context: policyContext())
        deliver(id, .fdo(arguments), shown, holders: [ownCaller], processID: UInt32(getpid()), counts: true)
    }

    /// The person chose an action on one of the bridge's own notifications.
    func ownAction(_ id: UInt32, key: String) {
        if let app = preferences.question(id) { return answer(id, app: app, key: key) }
        digestAction(id, key: key)
    }

    /// Moves replays into the forward queue while it has room; each stays held until then. The
    /// arguments come from the ledger while the store has not taken them (a full disk), else
    /// from the store; what each becomes is `ReplayPlan`'s.
    func feedReplays() {
        guard ledger.held.replayWaits else { return }
        while queuedCount < Self.replayQueueRoom, let (item, payload, cause) = ledger.nextReplay() {
            let stored = payload ?? (try? store.heldPayload(item.id) ?? nil).map { HeldPayload(type: $0.type, bytes: $0.bytes) }
            guard let stored, let arguments = DoorArguments(storedType: stored.type, bytes: stored.bytes) else {
                perform(ledger.transition(.replayed(item.id, .unreadable), now: clock.now))
                continue
            }
            let plan = ReplayPlan.plan(item, request: arguments.request, cause: cause, context: policyContext(),
                                       focusName: activeFocus?.name)
            perform(ledger.transition(.replayed(item.id, plan), now: clock.now), arguments: arguments)
        }
    }

    /// The person chose Show All or Dismiss on digest `digestID`.
    func digestAction(_ digestID: UInt32, key: String) {
        perform(ledger.transition(.digestAction(digestID, key: key), now: clock.now))
    }
}
