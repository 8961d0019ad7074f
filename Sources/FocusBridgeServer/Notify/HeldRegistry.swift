import FocusBridgeCore
import FocusBridgeStore
import Logging

/// The held notifications (for a Focus or the summary), durable in the store: who holds each,
/// which digest stands for it once one was sent, and which a Show All is replaying. Ownership is
/// `Caller.mayActFor`, as for what is shown (`NotificationTable.owned`).
final class HeldRegistry {
    private var held: [UInt32: (item: HeldNotification, digest: UInt32?)] = [:]
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
        for entry in entries { held[entry.item.id] = (entry.item, nil) }
        if !held.isEmpty { logger.info("\(held.count) notification(s) still held from before") }
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
    func hold(_ item: HeldNotification) { held[item.id] = (item, nil) }

    /// Held notifications still waiting (not yet sent out in a digest), oldest first.
    func waiting(_ kind: DeliveryOutcome) -> [HeldNotification] {
        held.values.filter { $0.digest == nil && $0.item.reason.outcome == kind }.map(\.item)
            .sorted { ($0.received, $0.id) < ($1.received, $1.id) }
    }

    /// What Focus `name` holds and no digest stands for yet.
    func waiting(for name: String) -> [HeldNotification] {
        held.values.filter { $0.digest == nil && $0.item.reason == .focus(name) }.map(\.item)
    }

    /// The Focuses that hold something, but `active`.
    func focusNames(besides active: String?) -> Set<String> {
        Set(held.values.compactMap { entry -> String? in
            guard entry.digest == nil, case .focus(let name) = entry.item.reason, name != active else { return nil }
            return name
        })
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
            held[id] = nil
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
        for item in items { held[item]?.digest = id }
    }

    /// What digest `id` stands for, but what a Show All is replaying.
    func members(ofDigest id: UInt32) -> [HeldNotification] {
        held.values.filter { $0.digest == id && !replaying.contains($0.item.id) }.map(\.item)
    }

    /// Digests that vanished with the daemon: what they stood for waits again.
    func digestsGone(_ ids: Set<UInt32>) {
        let orphans = held.values.filter { $0.digest.map(ids.contains) == true }.map(\.item.id)
        guard !orphans.isEmpty else { return }
        try? store.assignDigest(orphans, digest: nil)
        for id in orphans { held[id]?.digest = nil }
    }

    // MARK: Replay

    /// Queues held notifications to go out as themselves; `showAll`: from a digest's Show All
    /// (the digest closing no longer ends them).
    func queueReplay(_ ids: [UInt32], showAll: Bool = false, cause: String? = nil) {
        if showAll { replaying.formUnion(ids) }
        if let cause { for id in ids where held[id] != nil { replayCause[id] = cause } }
        backlog.append(contentsOf: ids)
    }

    /// The digests shown now that still stand for held notifications (but those being replayed),
    /// with what each stands for.
    func openDigests() -> [UInt32: [HeldNotification]] {
        var digests: [UInt32: [HeldNotification]] = [:]
        for entry in held.values {
            guard let digest = entry.digest, !replaying.contains(entry.item.id) else { continue }
            digests[digest, default: []].append(entry.item)
        }
        return digests
    }

    /// The digest `id` went out in, if it is held and one did.
    func digest(of id: UInt32) -> UInt32? { held[id]?.digest }

    /// Every held notification, waiting or in a digest, oldest first.
    var all: [HeldNotification] {
        held.values.map(\.item).sorted { ($0.received, $0.id) < ($1.received, $1.id) }
    }

    var replayWaits: Bool { backlogStart < backlog.count }

    /// The next held notification to replay, with its stored arguments (nil arguments: they
    /// cannot be read); nil when none waits. It stays held until `remove`.
    func nextReplay() -> (item: HeldNotification, arguments: NotifyArguments?, cause: String?)? {
        while backlogStart < backlog.count {
            let id = backlog[backlogStart]
            backlogStart += 1
            replaying.remove(id)
            guard let item = held[id]?.item else { continue }
            let payload = try? store.heldPayload(id)
            return (item, payload.flatMap { NotifyArguments(storedType: $0.type, bytes: $0.bytes) }, replayCause[id])
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
