/// The daemon's ID for each bridge ID it shows, both ways: a `Notify` that replaces names the
/// daemon's ID, and the daemon's signals name theirs. Kept by the forwarder; who holds each ID
/// is the bridge's (`NotificationTable`).
public struct DaemonIDs: Sendable {
    private var daemonForBridge: [UInt32: UInt32] = [:]
    private var bridgeForDaemon: [UInt32: UInt32] = [:]

    public init() {}

    public var count: Int { daemonForBridge.count }

    /// The daemon's ID for bridge ID `id`, once the daemon answered.
    public func daemonID(of id: UInt32) -> UInt32? { daemonForBridge[id] }

    /// The bridge ID the daemon's `daemonID` stands for.
    public func id(forDaemonID daemonID: UInt32) -> UInt32? { bridgeForDaemon[daemonID] }

    /// Records the daemon's ID for a bridge ID (replacing any earlier one: a daemon may answer a
    /// replacing `Notify` with a new ID).
    public mutating func bind(_ id: UInt32, daemonID: UInt32) {
        if let old = daemonForBridge[id], bridgeForDaemon[old] == id { bridgeForDaemon[old] = nil }
        daemonForBridge[id] = daemonID
        bridgeForDaemon[daemonID] = id
    }

    /// Bridge ID `id` ended: its daemon ID means nothing now.
    public mutating func forget(_ id: UInt32) {
        guard let daemonID = daemonForBridge.removeValue(forKey: id) else { return }
        if bridgeForDaemon[daemonID] == id { bridgeForDaemon[daemonID] = nil }
        if daemonForBridge.isEmpty {
            // The storage a burst grew goes back (a dictionary keeps its capacity).
            daemonForBridge = [:]
            bridgeForDaemon = [:]
        }
    }

    /// The daemon went away: its IDs mean nothing now. Returns the bridge IDs it was showing,
    /// in order.
    public mutating func forgetAll() -> [UInt32] {
        let shown = daemonForBridge.keys.sorted()
        daemonForBridge = [:]
        bridgeForDaemon = [:]
        return shown
    }
}
