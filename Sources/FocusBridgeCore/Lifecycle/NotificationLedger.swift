import FocusBridgeTime

/// The one owner of every bridge ID's life, from its `Notify` (or `AddNotification`) to its one
/// `NotificationClosed` (focus-bridge(1), BEHAVIOUR). Pure: each event is one `transition`, which
/// changes the state and returns what must be done as data (`Effect`); the bridge carries the
/// effects out and decides nothing. docs/ARCHITECTURE.md, "The ledger", draws the states.
///
/// The states of an ID:
/// - **held** (`held`, a reason: a Focus, the summary, a snooze; a digest once one stands for it),
/// - **shown** (`shown`: forwarded by a door, its holders; the daemon's ID is the forwarder's),
/// - **collapsed** (`shown` with `collapsedInto`: counted in an app's "N more" notification),
/// - **ended**: in neither; its holders were told once (`Effect.ended`/`endedMany`).
///
/// What holds: an ID is held or shown, never both; every ID that leaves both gets exactly one
/// `ended` (or `endedMany`) effect, but one snoozed (shown → held, its app not told) and one
/// replayed (held → shown); what the bridge's own notification stood for (a digest's members, an
/// "N more"'s collapsed ones) ends with it, for the same reason.
public struct NotificationLedger: Sendable {
    /// What is shown or collapsed now, with its holders.
    public private(set) var shown: NotificationTable
    /// What is held now (a Focus, the summary, a snooze), with the replay backlog.
    public private(set) var held: HeldIndex
    /// The GTK door's names of its IDs (the app's own ID), forgotten as each ends.
    public private(set) var gtkKeys = GtkKeys()
    /// The bridge's own connection: what it holds is the bridge's own (digests, questions, "N more").
    public var ownConnection: String

    public init(ownConnection: String, held: [HeldNotification] = [], capacity: Int = 20_000) {
        self.ownConnection = ownConnection
        shown = NotificationTable(capacity: capacity)
        self.held = HeldIndex(restoring: held)
    }

    public enum Event: Sendable {
        /// A door's `Notify` (or `AddNotification`), as the intake planned it: its held part (a
        /// held one replaced, the held item with its arguments). Its step is carried out by the
        /// events below (`forwarded`, `collapsed`) or by the answer's end (a drop).
        case received(Intake, payload: HeldPayload?)
        /// It went to its door's downstream (shown), for `holders`; `actionKeys`: forwarded key →
        /// the client's, where renamed.
        case forwarded(UInt32, appKey: String, holders: [Caller], actionKeys: [String: String])
        /// Counted in the "N more" notification `into`.
        case collapsed(UInt32, appKey: String, holders: [Caller], into: UInt32)
        /// A GTK app named bridge ID `id` itself: `gtkID` within its app (`appKey`, `appID`).
        case gtkNamed(UInt32, appKey: String, appID: String, gtkID: String)
        /// A drop's end, told once its ID was answered (`delivery = "off"`, muted, the app in front).
        case endedAtOnce(UInt32, CloseReason, holders: [Caller])
        /// An app's `CloseNotification` or `RemoveNotification` (someone else's ID: no effect).
        case closedByApp(UInt32, by: Caller)
        /// The daemon's `NotificationClosed`, or the bridge gave it up, or the person's quick
        /// action dismissed it.
        case closed(UInt32, CloseReason)
        /// The daemon's `ActionInvoked`.
        case action(UInt32, key: String)
        /// Another signal of the daemon's about a shown one, passed on to its holders as it came
        /// (`member`: its name); `isReply`: an inline reply, which is acting on it.
        case passOn(UInt32, member: String, text: String, isReply: Bool)
        /// The daemon went away with these shown.
        case daemonGone([UInt32])
        /// A Focus ended (`away`: it was on while the screen was locked).
        case focusEnded(String, after: AfterFocus, away: Bool)
        /// The scheduled summary is due.
        case summaryDue
        /// Show All or Dismiss on digest `id` (a click, or focusctl).
        case digestAction(UInt32, key: String)
        /// `focusctl show ID` of a held one: out as itself now.
        case show(UInt32)
        /// `focusctl dismiss ID` of a held one.
        case dismiss(UInt32)
        /// `focusctl dismiss --all-held`.
        case dismissAll
        /// A shown one leaves the daemon's screen until `item.reason`'s end, its app not told;
        /// `payload`: its arguments, rebuilt.
        case snoozed(HeldNotification, payload: HeldPayload)
        /// A snoozed one gets a new end.
        case snoozeMoved(UInt32, until: Instant)
        /// The snoozes due by `now` go out (through the replay).
        case snoozesDue
        /// What the replay decided for held `id` (`ReplayPlan`).
        case replayed(UInt32, ReplayPlan)
        /// The store took these held notifications.
        case written([UInt32])
    }

    public enum Effect: Equatable, Sendable {
        /// Store a held notification and its arguments with the next commit.
        case storeHold(HeldNotification, HeldPayload)
        /// Remove held notifications from the store (released, replayed or ended).
        case storeRelease([UInt32])
        /// Change what holds `id`, in the store.
        case storeReason(UInt32, HeldNotification.Reason)
        /// Note in the store which digest stands for these (nil: none, they wait again).
        case storeDigest([UInt32], digest: UInt32?)
        /// Forward held `item` as itself, shown as `shown` (`counts`: toward its app's rate limit),
        /// with the arguments the replay read; its `forwarded` event follows.
        case forward(HeldNotification, Shown, counts: Bool)
        /// Ask the daemon to close its copy (its `NotificationClosed` ends the ID).
        case closeOnDaemon(UInt32)
        /// Close the daemon's copy now, not waiting for the forward queue (a digest acted on).
        case closeOnDaemonNow(UInt32)
        /// Take a GTK notification off GNOME Shell's list.
        /// `name`: what its app calls it, read before the end forgets it (nil: not known).
        case removeFromShell(UInt32, name: GtkKeys.Name?)
        /// Take it off the daemon's screen without its app hearing of it (a snooze).
        case takeOffScreen(UInt32)
        /// Forget the daemon's ID for it (the bridge's ID left the screen).
        case forgetDaemonID(UInt32)
        /// It is no longer a possible duplicate of what comes next.
        case forgetRecent(UInt32)
        /// Its life ended: `NotificationClosed` to each holder, once; noted in history.
        case ended(UInt32, CloseReason, holders: [Caller])
        /// The same for many held ones at once (a release), told a slice per main-loop pass.
        case endedMany([HeldNotification], CloseReason)
        /// `ActionInvoked` with the client's key to each holder; noted as acted on.
        case actionInvoked(UInt32, key: String, holders: [String])
        /// A signal passed on as it came to each holder; `acted`: noted as acted on.
        case passOn(UInt32, member: String, text: String, holders: [String], acted: Bool)
        /// The person acted on the bridge's own notification `id`.
        case ownAction(UInt32, key: String)
        /// The person chose a quick action on `entry`.
        case quickAction(QuickAction, NotificationTable.Entry)
        /// The bridge's own notification `id` ended: what it was (a question, an "N more") is over.
        case ownEnded(UInt32)
        /// Send digest `id` (the bridge's own notification) standing for its items.
        case sendDigest(UInt32, Digest)
        /// Note a step of `id`'s fate in history.
        case noteFate(UInt32, FateStep)
        /// Move queued replays into the forward queue while it has room.
        case feedReplays
        /// The first snooze's end changed: arm the timer for it.
        case armSnoozes
        /// What status counts changed.
        case changed
        /// A line for the journal.
        case info(String)
        case warning(String)
    }

    /// Carries out `event`: the new state, and what must be done.
    /// - Parameters:
    ///   - now: the time of the event (history's steps, due snoozes).
    ///   - newID: hands out a new ID, asked only for a digest.
    public mutating func transition(_ event: Event, now: Instant, newID: () -> UInt32 = { 0 }) -> [Effect] {
        let effects = step(event, now: now, newID: newID)
        // An ID that ended is no longer a GTK app's to replace or remove (but one whose oldest
        // holders alone were let go of: it lives on).
        if gtkKeys.count > 0 {
            for effect in effects {
                switch effect {
                case .ended(let id, _, _): forgetGtkName(id)
                case .endedMany(let items, _): for item in items { forgetGtkName(item.id) }
                default: break
                }
            }
        }
        return effects
    }

    private mutating func step(_ event: Event, now: Instant, newID: () -> UInt32) -> [Effect] {
        switch event {
        case .received(let plan, let payload):
            return received(plan, payload: payload)
        case .forwarded(let id, let appKey, let holders, let actionKeys):
            // Tracked first, then read: `dropped(shown.track(…))` would copy `self` for the call
            // before the argument mutates it, and the table's storage with it (COW), per Notify.
            let released = shown.track(id, appKey: appKey, holders: holders, actionKeys: actionKeys)
            return dropped(released)
        case .collapsed(let id, let appKey, let holders, let group):
            let released = shown.track(id, appKey: appKey, holders: holders, collapsedInto: group)
            return dropped(released)
        case .gtkNamed(let id, let appKey, let appID, let gtkID):
            gtkKeys.bind(id, appKey: appKey, appID: appID, id: gtkID)
            return []
        case .endedAtOnce(let id, let reason, let holders):
            return [.ended(id, reason, holders: holders)]
        case .closedByApp(let id, let caller):
            return closedByApp(id, by: caller)
        case .closed(let id, let reason):
            return closed(id, reason: reason)
        case .action(let id, let key):
            return action(id, key: key)
        case .passOn(let id, let member, let text, let isReply):
            guard let entry = shown[id] else { return [] }
            let own = entry.connections.contains(ownConnection)
            return [.passOn(id, member: member, text: text, holders: entry.connections, acted: isReply && !own)]
        case .daemonGone(let ids):
            return daemonGone(ids)
        case .focusEnded(let name, let after, let away):
            return focusEnded(name, after: after, away: away, now: now, newID: newID)
        case .summaryDue:
            return digest(Digest.summary(of: held.waiting(.heldSummary)), now: now, newID: newID)
        case .digestAction(let id, let key):
            return digestAction(id, key: key)
        case .show(let id):
            guard held[id] != nil else { return [] }
            let digest = held.digest(of: id)
            held.queueReplay([id], showAll: true, cause: "focusctl show")
            return [.feedReplays] + closeIfEmpty(digest)
        case .dismiss(let id):
            guard let item = held[id] else { return [] }
            let digest = held.digest(of: id)
            held.remove([id])
            return [.storeRelease([id]), .ended(id, .dismissed, holders: item.holders), .changed] + closeIfEmpty(digest)
        case .dismissAll:
            let items = held.all
            guard !items.isEmpty else { return [] }
            let digests = Set(items.compactMap { held.digest(of: $0.id) })
            held.remove(items.map(\.id))
            return [.storeRelease(items.map(\.id)), .endedMany(items, .dismissed), .changed]
                + digests.sorted().flatMap { closeIfEmpty($0) }
        case .snoozed(let item, let payload):
            return snoozed(item, payload: payload, now: now)
        case .snoozeMoved(let id, let until):
            guard held[id]?.reason.snoozedUntil != nil else { return [] }
            held.setReason(id, .snooze(until: until))
            return [.storeReason(id, .snooze(until: until)),
                    .noteFate(id, FateStep(.snoozed, at: now, detail: String(until.timeIntervalSince1970))),
                    .armSnoozes, .changed]
        case .snoozesDue:
            let due = held.snoozed.prefix { $0.reason.snoozedUntil! <= now }.map(\.id)
            guard !due.isEmpty else { return [.armSnoozes] }
            held.queueReplay(due)
            return [.info("\(Count.of(due.count, "snooze")) ended"), .feedReplays, .armSnoozes, .changed]
        case .replayed(let id, let plan):
            return replayed(id, plan, now: now)
        case .written(let ids):
            held.written(ids)
            return []
        }
    }

    private mutating func forgetGtkName(_ id: UInt32) {
        guard !shown.contains(id), held[id] == nil else { return }
        gtkKeys.forget(id)
    }

    /// The next held notification to replay (`replayed` says what became of it).
    public mutating func nextReplay() -> (item: HeldNotification, payload: HeldPayload?, cause: String?)? {
        held.nextReplay()
    }

    // MARK: Transitions

    private mutating func received(_ plan: Intake, payload: HeldPayload?) -> [Effect] {
        let id = plan.number
        var effects: [Effect] = []
        if plan.replacesHeld, !held.remove([id]).isEmpty { effects.append(.storeRelease([id])) }
        if let item = plan.held, let payload {
            held.hold(item, payload: payload)
            effects.append(.storeHold(item, payload))
        }
        return effects
    }

    /// The holders the table let go of (it stays bounded): each is told its notification ended.
    private func dropped(_ dropped: [NotificationTable.Dropped]) -> [Effect] {
        guard !dropped.isEmpty else { return [] }
        var effects: [Effect] = []
        for item in dropped {
            // The whole ID went, not only some of its holders: its daemon ID goes too.
            if !shown.contains(item.id) { effects.append(.forgetDaemonID(item.id)) }
            effects.append(.ended(item.id, .undefined, holders: item.holders))
        }
        return effects
    }

    private mutating func closedByApp(_ id: UInt32, by caller: Caller) -> [Effect] {
        if held.owns(id, by: caller), let item = held[id] {
            held.remove([id])
            return [.storeRelease([id]), .ended(id, .closedByCall, holders: item.holders), .changed]
        }
        guard shown.owned(id, by: caller) != nil else { return [] }
        // GNOME Shell sends nothing back for a removal: the ID ends here. A daemon ends it with
        // its own `NotificationClosed`.
        if caller.door == .gtk {
            let name = gtkKeys.name(of: id)
            return [.removeFromShell(id, name: name)] + closed(id, reason: .closedByCall)
        }
        return [.closeOnDaemon(id)]
    }

    /// The one end of a shown (or collapsed) ID: forgotten, its holders told once; one of the
    /// bridge's own takes what it stood for with it.
    private mutating func closed(_ id: UInt32, reason: CloseReason) -> [Effect] {
        var effects: [Effect] = [.forgetRecent(id)]
        guard let entry = shown.remove(id) else { return effects }
        effects.append(.forgetDaemonID(id))
        if entry.connections.contains(ownConnection) { effects += endMembers(of: id, reason: reason) }
        effects.append(.ended(id, reason, holders: entry.holders))
        return effects
    }

    /// Ends what the bridge's own notification `id` stood for: the held members of a digest (but
    /// those a Show All is replaying) and the notifications an "N more" counted.
    private mutating func endMembers(of id: UInt32, reason: CloseReason) -> [Effect] {
        var effects: [Effect] = [.ownEnded(id)]
        let items = held.members(ofDigest: id)
        if !items.isEmpty {
            held.remove(items.map(\.id))
            effects += [.storeRelease(items.map(\.id)), .endedMany(items, reason), .changed]
        }
        for member in shown.collapsed(into: id) {
            shown.remove(member.id)
            effects += [.forgetDaemonID(member.id), .ended(member.id, reason, holders: member.holders)]
        }
        return effects
    }

    private func action(_ id: UInt32, key: String) -> [Effect] {
        guard let entry = shown[id] else { return [] }
        if let quick = QuickAction.action(forKey: key) { return [.quickAction(quick, entry)] }
        if entry.connections.contains(ownConnection) { return [.ownAction(id, key: key)] }
        return [.actionInvoked(id, key: entry.clientKey(for: key), holders: entry.connections)]
    }

    private mutating func daemonGone(_ ids: [UInt32]) -> [Effect] {
        let entries = ids.compactMap { shown.remove($0) }
        guard !entries.isEmpty else { return [] }
        // The bridge's own notifications vanished with the daemon: a digest's items wait again;
        // what an "N more" counted ends with it.
        let own = Set(entries.filter { $0.connections.contains(ownConnection) }.map(\.id))
        var effects: [Effect] = []
        let orphans = held.digestsGone(own)
        if !orphans.isEmpty { effects.append(.storeDigest(orphans, digest: nil)) }
        for id in own.sorted() { effects += endMembers(of: id, reason: .undefined) }
        effects.append(.warning("the daemon went away; the \(Count.of(entries.count, "notification")) it showed reported closed"))
        for entry in entries {
            effects += [.forgetRecent(entry.id), .ended(entry.id, .undefined, holders: entry.holders)]
        }
        return effects + [.changed]
    }

    private mutating func focusEnded(_ name: String, after: AfterFocus, away: Bool, now: Instant,
                                     newID: () -> UInt32) -> [Effect] {
        let items = held.waiting(for: name)
        guard !items.isEmpty else { return [] }
        let count = Count.of(items.count, "held notification")
        let safeName = name.escapingControlCharacters
        switch after {
        case .digest:
            return [.info("\(safeName) ended: \(count) in a digest")]
                + digest(Digest.afterFocus(name, items, away: away), now: now, newID: newID)
        case .replay:
            held.queueReplay(items.map(\.id), cause: "the end of \(name)")
            return [.info("\(safeName) ended: replaying \(count)"), .feedReplays]
        case .none:
            // Never to be shown: dismissed, as the person chose.
            held.remove(items.map(\.id))
            return [.info("\(safeName) ended: \(count) kept in history only"),
                    .storeRelease(items.map(\.id)), .endedMany(items, .dismissed), .changed]
        }
    }

    /// Digest `digest` goes out as the bridge's own notification, standing for its items.
    private mutating func digest(_ digest: Digest?, now: Instant, newID: () -> UInt32) -> [Effect] {
        guard let digest else { return [] }
        let id = newID()
        held.assign(digest.items, toDigest: id)
        return [.storeDigest(digest.items, digest: id)]
            + digest.items.map { .noteFate($0, FateStep(.inDigest, at: now, number: id)) }
            + [.sendDigest(id, digest), .changed]
    }

    private mutating func digestAction(_ id: UInt32, key: String) -> [Effect] {
        let items = held.members(ofDigest: id)
        switch key {
        case Digest.showAllKey:
            held.queueReplay(Digest.ordered(items).reversed().map(\.id), showAll: true, cause: "Show All")
            return [.feedReplays, .closeOnDaemonNow(id)]
        default:
            // Dismiss: what the digest stood for is dismissed by the person, each ID told so.
            held.remove(items.map(\.id))
            return (items.isEmpty ? [] : [.storeRelease(items.map(\.id)), .endedMany(items, .dismissed), .changed])
                + [.closeOnDaemonNow(id)]
        }
    }

    /// Closes digest `digest` on the daemon once it stands for nothing held.
    private func closeIfEmpty(_ digest: UInt32?) -> [Effect] {
        guard let digest, !held.isOpen(digest) else { return [] }
        return [.closeOnDaemonNow(digest)]
    }

    private mutating func snoozed(_ item: HeldNotification, payload: HeldPayload, now: Instant) -> [Effect] {
        guard let until = item.reason.snoozedUntil, shown.remove(item.id) != nil else { return [] }
        held.hold(item, payload: payload)
        // Taken off the screen before the daemon closes its copy: its `NotificationClosed` then
        // finds no bridge ID, and the app hears nothing.
        return [.forgetRecent(item.id), .takeOffScreen(item.id), .storeHold(item, payload),
                .info("notification \(item.id) (\(item.app.escapingControlCharacters)) snoozed until \(Fate.localTime(until, now: now))"),
                .noteFate(item.id, FateStep(.snoozed, at: now, detail: String(until.timeIntervalSince1970))),
                .armSnoozes, .changed]
    }

    private mutating func replayed(_ id: UInt32, _ plan: ReplayPlan, now: Instant) -> [Effect] {
        guard let item = held[id] else { return [] }
        switch plan {
        case .unreadable:
            held.remove([id])
            return [.storeRelease([id]), .warning("the stored notification \(id) cannot be read; dropped"),
                    .ended(id, .undefined, holders: item.holders), .changed]
        case .heldAgain(let reason):
            held.setReason(id, reason)
            return [.storeReason(id, reason),
                    .noteFate(id, FateStep(.unsnoozed, at: now, detail: reason.waiting(now: now))), .armSnoozes, .changed]
        case .shown(let shown, let counts, let step):
            // Shown from now on: its `forwarded` event tracks it.
            held.remove([id])
            return [.noteFate(id, step), .storeRelease([id]), .forward(item, shown, counts: counts), .changed]
        }
    }
}

extension HeldNotification.Reason {
    /// What holds it, as status and history say it: "held for Work", "snoozed until 15:04".
    public func waiting(now: Instant) -> String {
        switch self {
        case .focus(let name): "held for \(name)"
        case .summary: "held for the summary"
        case .snooze(let until): "snoozed until \(Fate.localTime(until, now: now))"
        }
    }
}
