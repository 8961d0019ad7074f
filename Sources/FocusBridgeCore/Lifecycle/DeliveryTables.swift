import FocusBridgeTime

/// The tables a decision reads and a delivery changes: what was delivered recently (duplicates)
/// and how much each app delivered (rate limits). The bridge owns one and changes it after each
/// delivery; every `PolicyContext` refers to it, so a decision reads the live tables in place and
/// a change never copies them while a context is alive.
public final class DeliveryTables: @unchecked Sendable {
    public private(set) var recent: DuplicateTracker
    public private(set) var flood: FloodGate
    /// Who called lately (repeated calls).
    public private(set) var calls = RecentCalls()

    public init(recent: DuplicateTracker = DuplicateTracker(), flood: FloodGate = FloodGate(limit: 0)) {
        self.recent = recent
        self.flood = flood
    }

    /// A notification went to the daemon: remembered as a possible duplicate (by `key`, when its
    /// decision made it) and, when `counts`, toward its app's rate limit.
    public func delivered(_ id: UInt32, appKey: String, summary: String, body: String, at date: Instant,
                          counts: Bool, key: DuplicateTracker.Key?) {
        if counts { flood.delivered(appKey, at: date) }
        recent.delivered(id, appKey: appKey, summary: summary, body: body, at: date, key: key)
    }

    /// A call from `person` came in (whatever became of it).
    public func called(_ person: String, at date: Instant) { calls.called(person, at: date) }

    /// Notification `id` closed: it is nobody's duplicate any more.
    public func closed(_ id: UInt32) { recent.closed(id) }

    /// The rate limits changed in the configuration: counting starts again under the new ones.
    public func limit(_ limit: Int, window: Double) {
        guard limit != flood.limit || window != flood.window else { return }
        flood = FloodGate(limit: limit, window: window)
    }
}
