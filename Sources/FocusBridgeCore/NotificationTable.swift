/// The notifications the bridge is tracking after deciding them: who holds each bridge ID, and
/// which daemon ID it is shown under — or, for one collapsed by the rate limit, which "N more"
/// notification stands for it.
public struct NotificationTable: Sendable {
    public struct Entry: Equatable, Sendable {
        public let id: UInt32
        public var appKey: String
        /// Every connection that holds this ID (it sent it, replaced it or repeated it), oldest
        /// first: each gets its signals and its one `NotificationClosed`.
        public var holders: [Caller]
        /// The daemon's ID once the daemon has answered.
        public var daemonID: UInt32?
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

    /// An ID whose life the table ended on its own (full table, too many holders): each of
    /// `holders` must still be told it closed.
    public struct Release: Equatable, Sendable {
        public let id: UInt32
        public let holders: [Caller]
    }

    /// How many entries are kept before the oldest are given up (a daemon that never reports
    /// closing, such as the log downstream, must not grow memory without bound).
    public let capacity: Int
    /// How many connections may hold one ID; past it the oldest holder is released.
    public static let maxHolders = 32
    private var entries: [UInt32: Entry] = [:]
    private var idForDaemonID: [UInt32: UInt32] = [:]
    private var order: [UInt32] = []
    private var orderStart = 0

    public init(capacity: Int = 20_000) { self.capacity = capacity }

    public var count: Int { entries.count }

    public subscript(id: UInt32) -> Entry? { entries[id] }

    /// The entry for `id` if `caller` may act on it (see `Caller.mayActFor`); someone else's ID
    /// is unknown.
    public func owned(_ id: UInt32, by caller: Caller) -> Entry? {
        guard id != 0, let entry = entries[id], entry.holders.contains(where: caller.mayActFor) else { return nil }
        return entry
    }

    /// Tracks a new ID, or adds `holder` to an existing one (keeping the holders it had).
    /// Returns what had to be given up to stay within the bounds.
    @discardableResult
    public mutating func track(_ id: UInt32, appKey: String, holder: Caller, actionKeys: [String: String] = [:],
                               collapsedInto: UInt32? = nil) -> [Release] {
        track(id, appKey: appKey, holders: [holder], actionKeys: actionKeys, collapsedInto: collapsedInto)
    }

    /// The same for several holders at once (a held notification going out keeps all of its).
    @discardableResult
    public mutating func track(_ id: UInt32, appKey: String, holders: [Caller], actionKeys: [String: String] = [:],
                               collapsedInto: UInt32? = nil) -> [Release] {
        if var entry = entries[id] {
            var released: [Release] = []
            entry.holders = Self.merge(entry.holders, holders, released: &released, id: id)
            entry.appKey = appKey
            entry.actionKeys = actionKeys
            entry.collapsedInto = collapsedInto
            entries[id] = entry
            return released
        }
        var released: [Release] = []
        let merged = Self.merge([], holders, released: &released, id: id)
        entries[id] = Entry(id: id, appKey: appKey, holders: merged, daemonID: nil, collapsedInto: collapsedInto,
                            actionKeys: actionKeys)
        order.append(id)
        return released + evictIfFull()
    }

    /// Holders in order of arrival, each connection once (a repeat moves to the end).
    static func merge(_ old: [Caller], _ new: [Caller], released: inout [Release], id: UInt32) -> [Caller] {
        var result = old
        for holder in new {
            result.removeAll { $0.connection == holder.connection }
            result.append(holder)
        }
        if result.count > maxHolders {
            released.append(Release(id: id, holders: Array(result.prefix(result.count - maxHolders))))
            result.removeFirst(result.count - maxHolders)
        }
        return result
    }

    /// Records the daemon's ID for a bridge ID (replacing any earlier one).
    public mutating func bind(_ id: UInt32, daemonID: UInt32) {
        guard var entry = entries[id] else { return }
        if let old = entry.daemonID, idForDaemonID[old] == id { idForDaemonID[old] = nil }
        entry.daemonID = daemonID
        entries[id] = entry
        idForDaemonID[daemonID] = id
    }

    public func id(forDaemonID daemonID: UInt32) -> UInt32? { idForDaemonID[daemonID] }

    @discardableResult
    public mutating func remove(_ id: UInt32) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        if let daemonID = entry.daemonID, idForDaemonID[daemonID] == id { idForDaemonID[daemonID] = nil }
        return entry
    }

    /// The notifications counted in the "N more" notification `id`, oldest first.
    public func collapsed(into id: UInt32) -> [Entry] {
        entries.values.filter { $0.collapsedInto == id }.sorted { $0.id < $1.id }
    }

    /// The daemon went away: its IDs mean nothing now. Returns the entries it was showing,
    /// which are forgotten.
    public mutating func forgetDaemon() -> [Entry] {
        let shown = entries.values.filter { $0.daemonID != nil }.sorted { $0.id < $1.id }
        for entry in shown { entries[entry.id] = nil }
        idForDaemonID.removeAll()
        return shown
    }

    private mutating func evictIfFull() -> [Release] {
        var released: [Release] = []
        while entries.count > capacity, orderStart < order.count {
            let oldest = order[orderStart]
            orderStart += 1
            if let entry = remove(oldest) { released.append(Release(id: entry.id, holders: entry.holders)) }
        }
        // Drop the consumed prefix now and then, and IDs already removed, to keep `order` small.
        if orderStart > 4096 || order.count > capacity * 2 {
            order = order[orderStart...].filter { entries[$0] != nil }
            orderStart = 0
        }
        return released
    }
}
