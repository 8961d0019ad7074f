import FocusBridgeCore
import FocusBridgeDBus
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// What becomes of held notifications later: a Focus ending, the scheduled summary, a digest's
/// Show All or Dismiss (focus-bridge(1), BEHAVIOUR). Digests are the bridge's own notifications,
/// shown as `Policy.present` says, held by the bridge itself.
extension Bridge {
    /// Replays go into the forward queue only while it is this short, so a Show All of a
    /// hundred thousand never overruns the queue's bound.
    static let replayQueueRoom = 512

    /// A Focus ended: what it held goes out as `after-focus` says.
    /// `away`: it was on while the screen was locked (its digest says so).
    func focusEnded(_ name: String, away: Bool = false) {
        askPendingQuestions()
        let items = held.waiting(for: name)
        guard !items.isEmpty else { return }
        switch settings.general.afterFocus {
        case .digest:
            logger.info("\(name) ended: \(Count.of(items.count, "held notification")) in a digest")
            send(Digest.afterFocus(name, items, away: away))
        case .replay:
            logger.info("\(name) ended: replaying \(Count.of(items.count, "held notification"))")
            replay(items.sorted { ($0.received, $0.id) < ($1.received, $1.id) }.map(\.id), cause: "the end of \(name)")
        case .none:
            logger.info("\(name) ended: \(Count.of(items.count, "held notification")) kept in history only")
            held.remove(items.map(\.id))
            // Never to be shown: dismissed, as the person chose.
            endedMany(items, reason: .dismissed)
        }
    }

    /// Items held for a Focus that is no longer on (it ended while the bridge was stopped).
    func focusesEnded(besides active: String?) {
        for name in held.focusNames(besides: active).sorted() { focusEnded(name) }
    }

    /// Delivers the scheduled summary now; returns how many notifications it holds.
    @discardableResult
    func deliverSummary() -> Int {
        let items = held.waiting(.heldSummary)
        send(Digest.summary(of: items))
        return items.count
    }

    /// Sends a digest as the bridge's own notification, with Show All and Dismiss.
    func send(_ digest: Digest?) {
        guard let digest else { return }
        let id = newID()
        held.assign(digest.items, toDigest: id)
        for item in digest.items { commit.noteFate(item, FateStep(.inDigest, at: clock.now, number: id)) }
        sendOwn(id, title: digest.title, body: digest.body, actions: digest.actions)
        stateChanged()
    }

    /// Sends one of the bridge's own notifications (a digest, a question), active, held by the bridge.
    func sendOwn(_ id: UInt32, title: String, body: String, actions: [String]) {
        record(HistoryEntry(id: id, app: Self.ownAppName, summary: title, body: body, level: .active,
                            decision: .delivered, received: clock.now))
        let arguments = NotifyArguments.own(appName: Self.ownAppName,
                                            appIcon: "preferences-system-notifications",
                                            summary: title, body: body, actions: actions)
        let app = AppIdentity(key: Self.ownAppName, source: .appName)
        let shown = Policy.present(arguments.request, app: app, level: .active, context: policyContext())
        deliver(id, .fdo(arguments), shown, holders: [ownCaller], processID: UInt32(getpid()), counts: true)
    }

    /// The person chose an action on one of the bridge's own notifications.
    func ownAction(_ id: UInt32, key: String) {
        if let app = preferences.question(id) { return answer(id, app: app, key: key) }
        digestAction(id, key: key)
    }

    /// Sends held notifications as themselves, each to be answered to its own app.
    func replay(_ ids: [UInt32], cause: String?) {
        held.queueReplay(ids, cause: cause)
        feedReplays()
    }

    /// Moves replays into the forward queue while it has room; each stays held until then.
    func feedReplays() {
        guard held.replayWaits else { return }
        var released: [UInt32] = []
        while queuedCount < Self.replayQueueRoom, let (item, arguments, cause) = held.nextReplay() {
            guard let arguments else {
                released.append(item.id)
                logger.error("the stored notification \(item.id) cannot be read; dropped")
                ended(item.id, reason: .undefined, holders: item.holders)
                continue
            }
            let request = arguments.request
            let app = AppIdentity.held(key: item.app, request: request,
                                       sandbox: item.holders.lazy.compactMap(\.sandbox).first)
            let context = policyContext()
            let shown: Shown
            if cause == nil, item.reason.snoozedUntil != nil {
                // A snooze that ended is decided as a new notification would be: held again by
                // the Focus on now or the summary, else shown as it was, quick actions too.
                let decision = Policy.decide(request, app: app, context: context)
                if let reason = heldAgain(decision.outcome) {
                    held.setReason(item.id, reason)
                    commit.noteFate(item.id, FateStep(.unsnoozed, at: clock.now, detail: Self.heldFor(reason, now: clock.now)))
                    continue
                }
                commit.noteFate(item.id, FateStep(.unsnoozed, at: clock.now))
                shown = decision.shown
            } else {
                commit.noteFate(item.id, FateStep(.replayed, at: clock.now, detail: cause))
                shown = Policy.present(request, app: app, context: context)
            }
            released.append(item.id)
            let counts = Policy.replayCounts(request, app: app, context: context)
            deliver(item.id, arguments, shown, holders: item.holders, processID: item.processID, counts: counts)
        }
        held.replayDrained()
        held.remove(released)
    }

    /// What holds a notification decided `outcome` now: the Focus on, or the summary (nil: shown).
    private func heldAgain(_ outcome: DeliveryOutcome) -> HeldNotification.Reason? {
        switch outcome {
        case .heldFocus: activeFocus.map { .focus($0.name) }
        case .heldSummary: .summary
        default: nil
        }
    }

    /// The person chose Show All or Dismiss on digest `digestID`.
    func digestAction(_ digestID: UInt32, key: String) {
        let items = held.members(ofDigest: digestID)
        switch key {
        case Digest.showAllKey:
            held.queueReplay(Digest.ordered(items).reversed().map(\.id), showAll: true, cause: "Show All")
            feedReplays()
        default:
            // Dismiss: what the digest stood for is dismissed by the person, each ID told so.
            held.remove(items.map(\.id))
            endedMany(items, reason: .dismissed)
        }
        closeOnDaemon(digestID)
    }
}
