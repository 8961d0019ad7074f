import FocusBridgeCore
import FocusBridgeStore
import FocusBridgeTime
import Logging

/// The held notifications (for a Focus or the summary), durable in the store: who holds each,
/// which digest stands for it once one was sent, and which a Show All is replaying. Ownership is
/// `Caller.mayActFor`, as for what is shown (`NotificationTable.owned`).
final class HeldRegistry {
    private var held: [UInt32: (item: HeldNotification, digest: UInt32?)] = [:]
    /// The IDs in no digest yet, by what holds them: every count and every release reads these,
    /// so that nothing a `Notify` causes walks all that is held.
    private var waitingIDs: [HeldNotification.Reason: Set<UInt32>] = [:]
    /// The IDs each digest stands for.
    private var digestIDs: [UInt32: Set<UInt32>] = [:]
    private let store: Store
    private let commit: GroupCommit
    private let failures: FailureLog
    private let logger: Logger
    /// Called when what `focusctl status` counts has changed.
    var changed: () -> Void = {}

    /// Held notifications waiting to be replayed, oldest first; they stay held (and durable)
    /// until they go into the forward queue.
    private var backlog: [UInt32] = []
    private var backlogStart = 0
    /// What the backlog holds, once each: a notification queued twice is not shown twice, and a
    /// snooze already on its way is not found due again.
    private var queued: Set<UInt32> = []
    /// Held notifications a Show All is replaying: their digest closing does not end them.
    private var replaying: Set<UInt32> = []
    /// What asked for each replay waiting in the backlog (history's "replayed by …").
    private var replayCause: [UInt32: String] = [:]

    init(store: Store, commit: GroupCommit, failures: FailureLog, logger: Logger) throws {
        self.store = store
        self.commit = commit
        self.failures = failures
        self.logger = logger
        // A digest sent before a restart is out of reach now: what it stood for waits again.
        let entries = try store.heldNotifications()
        try store.assignDigest(entries.filter { $0.digest != nil }.map(\.item.id), digest: nil)
        held.reserveCapacity(entries.count)
        for entry in entries { place(entry.item, digest: nil) }
        if !held.isEmpty { logger.info("\(Count.of(held.count, "notification")) still held from before") }
    }

    subscript(id: UInt32) -> HeldNotification? { held[id]?.item }

    /// The holders of `id` while it is held and not yet in a digest (what may be replaced or closed).
    func holders(of id: UInt32) -> [Caller]? {
        guard id != 0, let entry = held[id], entry.digest == nil else { return nil }
        return entry.item.holders
    }

    /// Whether `caller` may close or replace held notification `id`.
    func owns(_ id: UInt32, by caller: Caller) -> Bool {
        holders(of: id)?.contains(where: caller.mayActFor) ?? false
    }

    /// Holds `item` in memory; the store gets it with the group commit.
    func hold(_ item: HeldNotification) {
        unplace(item.id)
        place(item, digest: nil)
    }

    /// Enters `item` in `held` and in the index its digest (or none) puts it in.
    private func place(_ item: HeldNotification, digest: UInt32?) {
        held[item.id] = (item, digest)
        if let digest { digestIDs[digest, default: []].insert(item.id) } else { waitingIDs[Self.index(item.reason), default: []].insert(item.id) }
    }

    /// Takes `id` out of `held` and out of its index; returns what it was.
    @discardableResult
    private func unplace(_ id: UInt32) -> (item: HeldNotification, digest: UInt32?)? {
        guard let entry = held.removeValue(forKey: id) else { return nil }
        if let digest = entry.digest {
            digestIDs[digest]?.remove(id)
            if digestIDs[digest]?.isEmpty == true { digestIDs[digest] = nil }
        } else {
            let key = Self.index(entry.item.reason)
            waitingIDs[key]?.remove(id)
            if waitingIDs[key]?.isEmpty == true { waitingIDs[key] = nil }
        }
        return entry
    }

    /// Every snooze under one key, whatever its end: the index keeps as few keys as there are
    /// Focuses, so what a `Notify` counts does not grow with the snoozes.
    private static let snoozes = HeldNotification.Reason.snooze(until: TimeBounds.earliest)

    private static func index(_ reason: HeldNotification.Reason) -> HeldNotification.Reason {
        reason.snoozedUntil == nil ? reason : snoozes
    }

    private func items(_ ids: Set<UInt32>) -> [HeldNotification] { ids.compactMap { held[$0]?.item } }

    private static func oldestFirst(_ items: [HeldNotification]) -> [HeldNotification] {
        items.sorted { ($0.received, $0.id) < ($1.received, $1.id) }
    }

    /// Held notifications still waiting (not yet sent out in a digest), oldest first.
    func waiting(_ kind: DeliveryOutcome) -> [HeldNotification] {
        Self.oldestFirst(waitingIDs.filter { $0.key.outcome == kind }.flatMap { items($0.value) })
    }

    /// How many wait (in no digest yet) of `kind`, without listing them.
    func waitingCount(_ kind: DeliveryOutcome) -> Int {
        waitingIDs.reduce(0) { $0 + ($1.key.outcome == kind ? $1.value.count : 0) }
    }

    /// What Focus `name` holds and no digest stands for yet, oldest first.
    func waiting(for name: String) -> [HeldNotification] {
        Self.oldestFirst(items(waitingIDs[.focus(name)] ?? []))
    }

    /// How many Focus `name` holds that no digest stands for yet.
    func waitingCount(for name: String) -> Int { waitingIDs[.focus(name)]?.count ?? 0 }

    /// The Focuses that hold something, but `active`.
    func focusNames(besides active: String?) -> Set<String> {
        Set(waitingIDs.keys.compactMap { reason -> String? in
            guard case .focus(let name) = reason, name != active else { return nil }
            return name
        })
    }

    // MARK: Snoozes

    /// The snoozed ones not on their way out yet, soonest due first.
    var snoozed: [HeldNotification] {
        items((waitingIDs[Self.snoozes] ?? []).subtracting(queued)).sorted { ($0.reason.snoozedUntil!, $0.id) < ($1.reason.snoozedUntil!, $1.id) }
    }

    /// Until when held notification `id` is snoozed (nil: it is not, or not held).
    func snoozedUntil(_ id: UInt32) -> Instant? { held[id]?.item.reason.snoozedUntil }

    /// How many are snoozed, without listing them.
    var snoozedCount: Int { waitingIDs[Self.snoozes]?.count ?? 0 }

    /// When the first snooze ends (nil: none waits).
    var nextSnoozeEnd: Instant? {
        (waitingIDs[Self.snoozes] ?? []).subtracting(queued).compactMap { held[$0]?.item.reason.snoozedUntil }.min()
    }

    /// Changes what holds `id`, durably (a snooze made longer, one that ended under a Focus); it
    /// waits in no digest after.
    func setReason(_ id: UInt32, _ reason: HeldNotification.Reason) {
        guard var item = unplace(id)?.item else { return }
        item.reason = reason
        place(item, digest: nil)
        commit.rehold(id, reason: reason)
        do { try store.setHeldReason(id, reason); failures.succeeded("updating the held notifications") } catch {
            failures.failed("updating the held notifications", "cannot update the held notifications in the state database: \(oneLine(error))")
        }
        changed()
    }

    /// Removes held notifications (delivered, replaced, closed or dismissed), durably.
    func remove(_ ids: [UInt32]) {
        let present = ids.filter { held[$0] != nil }
        guard !present.isEmpty else { return }
        commit.withdrawHolds(Set(present))
        do { try store.removeHeld(present); failures.succeeded("updating the held notifications") } catch {
            failures.failed("updating the held notifications", "cannot update the held notifications in the state database: \(oneLine(error))")
        }
        for id in present {
            unplace(id)
            queued.remove(id)
            replaying.remove(id)
            replayCause[id] = nil
        }
        changed()
    }

    // MARK: Digests

    /// Notes that digest `id` stands for `items`.
    func assign(_ items: [UInt32], toDigest id: UInt32) {
        do { try store.assignDigest(items, digest: id) } catch {
            logger.error("cannot record the digest: \(error)")
        }
        for item in items { if let entry = unplace(item) { place(entry.item, digest: id) } }
    }

    /// What digest `id` stands for, but what a Show All is replaying.
    func members(ofDigest id: UInt32) -> [HeldNotification] {
        items((digestIDs[id] ?? []).subtracting(replaying))
    }

    /// Whether digest `id` still stands for a held notification a Show All is not replaying.
    func isOpen(_ id: UInt32) -> Bool {
        digestIDs[id]?.contains { !replaying.contains($0) } ?? false
    }

    /// Digests that vanished with the daemon: what they stood for waits again.
    func digestsGone(_ ids: Set<UInt32>) {
        let orphans = ids.flatMap { digestIDs[$0] ?? [] }
        guard !orphans.isEmpty else { return }
        try? store.assignDigest(orphans, digest: nil)
        for id in orphans { if let entry = unplace(id) { place(entry.item, digest: nil) } }
    }

    // MARK: Replay

    /// Queues held notifications to go out as themselves; `showAll`: from a digest's Show All
    /// (the digest closing no longer ends them).
    func queueReplay(_ ids: [UInt32], showAll: Bool = false, cause: String? = nil) {
        if showAll { replaying.formUnion(ids) }
        if let cause { for id in ids where held[id] != nil { replayCause[id] = cause } }
        for id in ids where queued.insert(id).inserted { backlog.append(id) }
    }

    /// The digests shown now that still stand for held notifications (but those being replayed),
    /// with what each stands for.
    func openDigests() -> [UInt32: [HeldNotification]] {
        var digests: [UInt32: [HeldNotification]] = [:]
        for digest in digestIDs.keys {
            let members = members(ofDigest: digest)
            if !members.isEmpty { digests[digest] = members }
        }
        return digests
    }

    /// The digest `id` went out in, if it is held and one did.
    func digest(of id: UInt32) -> UInt32? { held[id]?.digest }

    /// Every held notification, waiting or in a digest, oldest first.
    var all: [HeldNotification] { Self.oldestFirst(held.values.map(\.item)) }

    /// How many are held, waiting or in a digest.
    var count: Int { held.count }

    var replayWaits: Bool { backlogStart < backlog.count }

    /// The next held notification to replay, with its stored arguments (nil arguments: they
    /// cannot be read); nil when none waits. It stays held until `remove`.
    func nextReplay() -> (item: HeldNotification, arguments: DoorArguments?, cause: String?)? {
        while backlogStart < backlog.count {
            let id = backlog[backlogStart]
            backlogStart += 1
            queued.remove(id)
            replaying.remove(id)
            guard let item = held[id]?.item else { continue }
            let payload = try? store.heldPayload(id)
            return (item, payload.flatMap { DoorArguments(storedType: $0.type, bytes: $0.bytes) }, replayCause[id])
        }
        return nil
    }

    /// Empties the backlog once all of it went out.
    func replayDrained() {
        guard backlogStart == backlog.count else { return }
        backlog = []
        backlogStart = 0
    }
}
