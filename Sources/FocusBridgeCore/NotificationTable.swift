/// The notifications the bridge is tracking: who owns each bridge ID, and which daemon ID it
/// is shown under.
public struct NotificationTable: Sendable {
    public struct Entry: Equatable, Sendable {
        public let id: UInt32
        public var appKey: String
        /// The connection that last sent `Notify` for this ID: signals go to it alone.
        public var sender: String
        /// The daemon's ID once the daemon has answered.
        public var daemonID: UInt32?
        /// Forwarded action key → the client's key, where the bridge renamed one.
        public var actionKeys: [String: String] = [:]

        /// The client's key for an action the daemon reports.
        public func clientKey(for forwardedKey: String) -> String { actionKeys[forwardedKey] ?? forwardedKey }
    }

    /// How many entries are kept before the oldest are forgotten (a daemon that never reports
    /// closing, such as the log downstream, must not grow memory without bound).
    public let capacity: Int
    private var entries: [UInt32: Entry] = [:]
    private var idForDaemonID: [UInt32: UInt32] = [:]
    private var order: [UInt32] = []
    private var orderStart = 0

    public init(capacity: Int = 20_000) { self.capacity = capacity }

    public var count: Int { entries.count }

    public subscript(id: UInt32) -> Entry? { entries[id] }

    /// The entry for `id` if it belongs to the caller: the same connection, or the same app
    /// (a later `notify-send -r ID` runs in a new process). Someone else's ID is unknown.
    public func owned(_ id: UInt32, sender: String, appKey: String) -> Entry? {
        owned(id, sender: sender, appKeys: [appKey])
    }

    /// The same, for a caller known under several app keys (those its notifications named).
    public func owned(_ id: UInt32, sender: String, appKeys: [String]) -> Entry? {
        guard id != 0, let entry = entries[id] else { return nil }
        let key = entry.appKey.lowercased()
        if entry.sender == sender || appKeys.contains(where: { $0.lowercased() == key }) { return entry }
        return nil
    }

    /// Tracks a new ID, or re-points an existing one at its latest sender.
    public mutating func track(_ id: UInt32, appKey: String, sender: String, actionKeys: [String: String] = [:]) {
        if var entry = entries[id] {
            entry.sender = sender
            entry.appKey = appKey
            entry.actionKeys = actionKeys
            entries[id] = entry
            return
        }
        entries[id] = Entry(id: id, appKey: appKey, sender: sender, daemonID: nil, actionKeys: actionKeys)
        order.append(id)
        evictIfFull()
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

    /// The daemon went away: its IDs mean nothing now. Returns the entries it was showing,
    /// which are forgotten.
    public mutating func forgetDaemon() -> [Entry] {
        let shown = entries.values.filter { $0.daemonID != nil }.sorted { $0.id < $1.id }
        for entry in shown { entries[entry.id] = nil }
        idForDaemonID.removeAll()
        return shown
    }

    private mutating func evictIfFull() {
        while entries.count > capacity, orderStart < order.count {
            let oldest = order[orderStart]
            orderStart += 1
            remove(oldest)
        }
        // Drop the consumed prefix now and then, and IDs already removed, to keep `order` small.
        if orderStart > 4096 || order.count > capacity * 2 {
            order = order[orderStart...].filter { entries[$0] != nil }
            orderStart = 0
        }
    }
}
