/// Who holds each bridge ID shown or collapsed now (the bridge's own registry: the forwarder
/// keeps only the daemon's IDs, `DaemonIDs`), and, for one collapsed by the rate limit, which
/// "N more" notification stands for it.
///
/// Each ID costs a 12-byte slot and no allocation of its own (`Slot`); `Entry` is the whole
/// view of one, made when asked for.
public struct NotificationTable: Sendable {
    public struct Entry: Equatable, Sendable {
        public let id: UInt32
        public var appKey: String
        /// Every connection that holds this ID (it sent it, replaced it or repeated it), oldest
        /// first: each gets its signals and its one `NotificationClosed`.
        public var holders: [Caller]
        /// For a notification collapsed by the rate limit: the "N more from App" notification it
        /// is counted in; it ends when that one does.
        public var collapsedInto: UInt32?
        /// Forwarded action key → the client's key, where the bridge renamed one.
        public var actionKeys: [String: String] = [:]

        /// The client's key for an action the daemon reports.
        public func clientKey(for forwardedKey: String) -> String { actionKeys[forwardedKey] ?? forwardedKey }

        /// The connections its signals go to.
        public var connections: [String] { holders.map(\.connection) }
    }

    /// Holders the table let go of on its own — the whole ID when the table is full, the oldest
    /// holders past `maxHolders`: each of `holders` must still be told it closed.
    public struct Dropped: Equatable, Sendable {
        public let id: UInt32
        public let holders: [Caller]
    }

    /// How many entries are kept before the oldest are given up (a daemon that never reports
    /// closing, such as the log downstream, must not grow memory without bound).
    public let capacity: Int
    /// How many connections may hold one ID; past it the oldest holder is released.
    public static let maxHolders = 32

    /// What is kept per ID: 12 bytes, no allocation of its own. The holders and the app key are
    /// handles into `callers` and `appKeys`; an ID held by more than one connection, or with
    /// renamed action keys, has the rest in `extras`.
    struct Slot: Sendable {
        /// The app key's handle (under 2^31: there are never that many), and a flag: whether
        /// `group` holds a value.
        private var packed: UInt32
        private var first: UInt32
        private var group: UInt32

        private static let hasGroup: UInt32 = 1 << 31
        private static let none = UInt32.max

        init(appKey: UInt32, holder: UInt32?, collapsedInto: UInt32?) {
            precondition(appKey < Self.hasGroup)
            packed = appKey | (collapsedInto == nil ? 0 : Self.hasGroup)
            first = holder ?? Self.none
            group = collapsedInto ?? 0
        }

        var appKey: UInt32 { packed & (Self.hasGroup - 1) }
        /// The oldest holder (none only if it was tracked for nobody).
        var holder: UInt32? { first == Self.none ? nil : first }
        var collapsedInto: UInt32? { packed & Self.hasGroup == 0 ? nil : group }
    }

    /// The rare part of an entry.
    struct Extra: Sendable {
        /// The holders after the oldest, oldest first.
        var holders: [UInt32] = []
        var actionKeys: [String: String] = [:]

        var isEmpty: Bool { holders.isEmpty && actionKeys.isEmpty }
    }

    private var slots: [UInt32: Slot] = [:]
    private var extras: [UInt32: Extra] = [:]
    private var callers = InternTable<Caller>()
    private var appKeys = InternTable<String>()
    private var order: [UInt32] = []
    private var orderStart = 0

    public init(capacity: Int = 20_000) { self.capacity = capacity }

    public var count: Int { slots.count }

    /// How many distinct connections and app keys the entries refer to (what the table keeps
    /// besides its fixed-size slots).
    public var sharedValues: (callers: Int, appKeys: Int) { (callers.count, appKeys.count) }

    public subscript(id: UInt32) -> Entry? { slots[id].map { entry(id, $0) } }

    public func contains(_ id: UInt32) -> Bool { slots[id] != nil }

    private func holderHandles(_ id: UInt32, _ slot: Slot) -> [UInt32] {
        guard let first = slot.holder else { return [] }
        return [first] + (extras[id]?.holders ?? [])
    }

    private func entry(_ id: UInt32, _ slot: Slot) -> Entry {
        let extra = extras[id]
        var holders: [Caller] = []
        if let first = slot.holder { holders.append(callers[first]) }
        if let more = extra?.holders { holders += more.map { callers[$0] } }
        return Entry(id: id, appKey: appKeys[slot.appKey], holders: holders, collapsedInto: slot.collapsedInto,
                     actionKeys: extra?.actionKeys ?? [:])
    }

    /// The entry for `id` if `caller` may act on it (see `Caller.mayActFor`); someone else's ID
    /// is unknown.
    public func owned(_ id: UInt32, by caller: Caller) -> Entry? {
        guard id != 0, let slot = slots[id],
              holderHandles(id, slot).contains(where: { caller.mayActFor(callers[$0]) }) else { return nil }
        return entry(id, slot)
    }

    /// Tracks a new ID, or adds `holder` to an existing one (keeping the holders it had).
    /// Returns what had to be given up to stay within the bounds.
    @discardableResult
    public mutating func track(_ id: UInt32, appKey: String, holder: Caller, actionKeys: [String: String] = [:],
                               collapsedInto: UInt32? = nil) -> [Dropped] {
        track(id, appKey: appKey, holders: [holder], actionKeys: actionKeys, collapsedInto: collapsedInto)
    }

    /// The same for several holders at once (a held notification going out keeps all of its).
    @discardableResult
    public mutating func track(_ id: UInt32, appKey: String, holders: [Caller], actionKeys: [String: String] = [:],
                               collapsedInto: UInt32? = nil) -> [Dropped] {
        var released: [Dropped] = []
        let known = slots[id]
        let old = known.map { holderHandles(id, $0) } ?? []
        let merged = merge(old, holders, released: &released, id: id)
        let key = appKeys.retain(appKey)
        if let known { appKeys.release(known.appKey) }
        slots[id] = Slot(appKey: key, holder: merged.first, collapsedInto: collapsedInto)
        let extra = Extra(holders: Array(merged.dropFirst()), actionKeys: actionKeys)
        extras[id] = extra.isEmpty ? nil : extra
        guard known == nil else { return released }
        order.append(id)
        return released + evictIfFull()
    }

    /// Holders in order of arrival, each connection once (a repeat moves to the end); the handles
    /// of `old` are the table's already, those of `new` are retained here, and those dropped
    /// released.
    private mutating func merge(_ old: [UInt32], _ new: [Caller], released: inout [Dropped], id: UInt32) -> [UInt32] {
        var result = old
        for holder in new {
            result.removeAll { handle in
                guard callers[handle].connection == holder.connection else { return false }
                callers.release(handle)
                return true
            }
            result.append(callers.retain(holder))
        }
        if result.count > Self.maxHolders {
            let dropped = result.prefix(result.count - Self.maxHolders)
            released.append(Dropped(id: id, holders: dropped.map { callers[$0] }))
            for handle in dropped { callers.release(handle) }
            result.removeFirst(result.count - Self.maxHolders)
        }
        return result
    }

    @discardableResult
    public mutating func remove(_ id: UInt32) -> Entry? {
        guard let slot = slots[id] else { return nil }
        let entry = entry(id, slot)
        slots[id] = nil
        for handle in holderHandles(id, slot) { callers.release(handle) }
        appKeys.release(slot.appKey)
        extras[id] = nil
        if slots.isEmpty { shrink() }
        return entry
    }

    /// The notifications counted in the "N more" notification `id`, oldest first.
    public func collapsed(into id: UInt32) -> [Entry] {
        slots.filter { $0.value.collapsedInto == id }.map { entry($0.key, $0.value) }.sorted { $0.id < $1.id }
    }

    /// Nothing is tracked: the storage a burst grew goes back (a dictionary keeps its capacity).
    private mutating func shrink() {
        slots = [:]
        extras = [:]
        order = []
        orderStart = 0
    }

    private mutating func evictIfFull() -> [Dropped] {
        var released: [Dropped] = []
        while slots.count > capacity, orderStart < order.count {
            let oldest = order[orderStart]
            orderStart += 1
            if let entry = remove(oldest) { released.append(Dropped(id: entry.id, holders: entry.holders)) }
        }
        // Drop the consumed prefix now and then, and IDs already removed, to keep `order` small.
        if orderStart > 4096 || order.count > capacity * 2 {
            order = order[orderStart...].filter { slots[$0] != nil }
            orderStart = 0
        }
        return released
    }
}
