import FocusBridgeTime

/// A held notification's original arguments as the store keeps them: a door's signature and the
/// call's bytes (GVariant's serialised form), replayed byte for byte.
public struct HeldPayload: Equatable, Sendable {
    public var type: String
    public var bytes: [UInt8]

    public init(type: String, bytes: [UInt8]) {
        self.type = type
        self.bytes = bytes
    }
}

/// What is held now (for a Focus, the summary or a snooze), in memory: each item, the digest
/// that stands for it once one was sent, the replay backlog, and the arguments of those the
/// store has not taken yet. The ledger's part for the held states; the store keeps the same
/// durably, written by the bridge as the ledger's effects say.
///
/// What holds: every held ID is in exactly one index — `waitingIDs` under its reason (all
/// snoozes under one key) or `digestIDs` under its digest; an ID is in the backlog at most once
/// (`queued`); `unwritten` has arguments only for held IDs.
public struct HeldIndex: Sendable {
    private var held: [UInt32: (item: HeldNotification, digest: UInt32?)] = [:]
    /// The IDs in no digest yet, by what holds them: every count and every release reads these,
    /// so that nothing a `Notify` causes walks all that is held.
    private var waitingIDs: [HeldNotification.Reason: Set<UInt32>] = [:]
    /// The IDs each digest stands for.
    private var digestIDs: [UInt32: Set<UInt32>] = [:]
    /// Held notifications waiting to be replayed, oldest first; they stay held until they go out.
    private var backlog: [UInt32] = []
    private var backlogStart = 0
    /// What the backlog holds, once each: a notification queued twice is not shown twice, and a
    /// snooze already on its way is not found due again.
    private var queued: Set<UInt32> = []
    /// Held notifications a Show All is replaying: their digest closing does not end them.
    private var replaying: Set<UInt32> = []
    /// What asked for each replay waiting in the backlog (history's "replayed by …").
    private var replayCause: [UInt32: String] = [:]
    /// The arguments of held notifications the store has not taken yet (a write refused, or not
    /// made yet): a replay finds them here, so nothing acknowledged is lost to a full disk.
    private var unwritten: [UInt32: HeldPayload] = [:]

    public init() {}

    /// What the store kept from before a restart; a digest sent then is out of reach now, so
    /// everything waits again.
    public init(restoring items: [HeldNotification]) {
        held.reserveCapacity(items.count)
        for item in items { place(item, digest: nil) }
    }

    public subscript(id: UInt32) -> HeldNotification? { held[id]?.item }

    /// How many are held, waiting or in a digest.
    public var count: Int { held.count }

    /// Every held notification, waiting or in a digest, oldest first.
    public var all: [HeldNotification] { Self.oldestFirst(held.values.map(\.item)) }

    /// The holders of `id` while it is held and not yet in a digest (what may be replaced or closed).
    public func holders(of id: UInt32) -> [Caller]? {
        guard id != 0, let entry = held[id], entry.digest == nil else { return nil }
        return entry.item.holders
    }

    /// Whether `caller` may close or replace held notification `id`.
    public func owns(_ id: UInt32, by caller: Caller) -> Bool {
        holders(of: id)?.contains(where: caller.mayActFor) ?? false
    }

    /// Holds `item`; `payload`: its arguments until the store has them.
    public mutating func hold(_ item: HeldNotification, payload: HeldPayload?) {
        unplace(item.id)
        place(item, digest: nil)
        unwritten[item.id] = payload
    }

    /// The store has these now: their arguments are read from it from now on.
    public mutating func written(_ ids: [UInt32]) {
        guard !unwritten.isEmpty else { return }
        for id in ids { unwritten[id] = nil }
    }

    /// How many held notifications the store has not taken yet.
    public var unwrittenCount: Int { unwritten.count }

    /// Removes held notifications; returns those that were held.
    @discardableResult
    public mutating func remove(_ ids: [UInt32]) -> [UInt32] {
        var present: [UInt32] = []
        for id in ids where unplace(id) != nil {
            present.append(id)
            queued.remove(id)
            replaying.remove(id)
            replayCause[id] = nil
            unwritten[id] = nil
        }
        return present
    }

    /// Changes what holds `id`; it waits in no digest after. False when it is not held.
    @discardableResult
    public mutating func setReason(_ id: UInt32, _ reason: HeldNotification.Reason) -> Bool {
        guard var item = unplace(id)?.item else { return false }
        item.reason = reason
        place(item, digest: nil)
        return true
    }

    private mutating func place(_ item: HeldNotification, digest: UInt32?) {
        held[item.id] = (item, digest)
        if let digest { digestIDs[digest, default: []].insert(item.id) } else { waitingIDs[Self.index(item.reason), default: []].insert(item.id) }
    }

    @discardableResult
    private mutating func unplace(_ id: UInt32) -> (item: HeldNotification, digest: UInt32?)? {
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

    static func oldestFirst(_ items: [HeldNotification]) -> [HeldNotification] {
        items.sorted { ($0.received, $0.id) < ($1.received, $1.id) }
    }

    // MARK: Waiting

    /// Held notifications still waiting (not yet sent out in a digest), oldest first.
    public func waiting(_ kind: DeliveryOutcome) -> [HeldNotification] {
        Self.oldestFirst(waitingIDs.filter { $0.key.outcome == kind }.flatMap { items($0.value) })
    }

    /// How many wait (in no digest yet) of `kind`, without listing them.
    public func waitingCount(_ kind: DeliveryOutcome) -> Int {
        waitingIDs.reduce(0) { $0 + ($1.key.outcome == kind ? $1.value.count : 0) }
    }

    /// What Focus `name` holds and no digest stands for yet, oldest first.
    public func waiting(for name: String) -> [HeldNotification] {
        Self.oldestFirst(items(waitingIDs[.focus(name)] ?? []))
    }

    /// How many Focus `name` holds that no digest stands for yet.
    public func waitingCount(for name: String) -> Int { waitingIDs[.focus(name)]?.count ?? 0 }

    /// The Focuses that hold something, but `active`.
    public func focusNames(besides active: String?) -> Set<String> {
        Set(waitingIDs.keys.compactMap { reason -> String? in
            guard case .focus(let name) = reason, name != active else { return nil }
            return name
        })
    }

    // MARK: Snoozes

    /// The snoozed ones not on their way out yet, soonest due first.
    public var snoozed: [HeldNotification] {
        items((waitingIDs[Self.snoozes] ?? []).subtracting(queued))
            .sorted { ($0.reason.snoozedUntil!, $0.id) < ($1.reason.snoozedUntil!, $1.id) }
    }

    /// Until when held notification `id` is snoozed (nil: it is not, or not held).
    public func snoozedUntil(_ id: UInt32) -> Instant? { held[id]?.item.reason.snoozedUntil }

    /// How many are snoozed, without listing them.
    public var snoozedCount: Int { waitingIDs[Self.snoozes]?.count ?? 0 }

    /// When the first snooze not on its way out ends (nil: none waits).
    public var nextSnoozeEnd: Instant? {
        (waitingIDs[Self.snoozes] ?? []).subtracting(queued).compactMap { held[$0]?.item.reason.snoozedUntil }.min()
    }

    // MARK: Digests

    /// Notes that digest `id` stands for `items`.
    public mutating func assign(_ items: [UInt32], toDigest id: UInt32) {
        for item in items { if let entry = unplace(item) { place(entry.item, digest: id) } }
    }

    /// What digest `id` stands for, but what a Show All is replaying.
    public func members(ofDigest id: UInt32) -> [HeldNotification] {
        items((digestIDs[id] ?? []).subtracting(replaying))
    }

    /// Whether digest `id` still stands for a held notification a Show All is not replaying.
    public func isOpen(_ id: UInt32) -> Bool {
        digestIDs[id]?.contains { !replaying.contains($0) } ?? false
    }

    /// Digests gone with the daemon: what they stood for waits again. Returns those IDs.
    public mutating func digestsGone(_ ids: Set<UInt32>) -> [UInt32] {
        let orphans = ids.flatMap { digestIDs[$0] ?? [] }
        for id in orphans { if let entry = unplace(id) { place(entry.item, digest: nil) } }
        return orphans
    }

    /// The digests that still stand for held notifications (but those being replayed), with
    /// what each stands for.
    public func openDigests() -> [UInt32: [HeldNotification]] {
        var digests: [UInt32: [HeldNotification]] = [:]
        for digest in digestIDs.keys {
            let members = members(ofDigest: digest)
            if !members.isEmpty { digests[digest] = members }
        }
        return digests
    }

    /// The digest `id` went out in, if it is held and one did.
    public func digest(of id: UInt32) -> UInt32? { held[id]?.digest }

    // MARK: Replay

    /// Queues held notifications to go out as themselves; `showAll`: from a digest's Show All
    /// (the digest closing no longer ends them).
    public mutating func queueReplay(_ ids: [UInt32], showAll: Bool = false, cause: String? = nil) {
        if showAll { replaying.formUnion(ids) }
        if let cause { for id in ids where held[id] != nil { replayCause[id] = cause } }
        for id in ids where queued.insert(id).inserted { backlog.append(id) }
    }

    public var replayWaits: Bool { backlogStart < backlog.count }

    /// The next held notification to replay, with its arguments when the store has not taken
    /// them yet (nil: read them from the store); nil when none waits. It stays held until removed.
    public mutating func nextReplay() -> (item: HeldNotification, payload: HeldPayload?, cause: String?)? {
        defer { if backlogStart == backlog.count { backlog = []; backlogStart = 0 } }
        while backlogStart < backlog.count {
            let id = backlog[backlogStart]
            backlogStart += 1
            queued.remove(id)
            replaying.remove(id)
            guard let item = held[id]?.item else { continue }
            return (item, unwritten[id], replayCause[id])
        }
        return nil
    }
}
