import FocusBridgeTime

/// Counts what each app had delivered recently, so that one app sending thousands of
/// notifications cannot bury the screen or hang the daemon: past `limit` in `window`, the rest
/// are collapsed into one "N more from App" notification.
public struct FloodGate: Sendable {
    public let limit: Int
    public let window: Double
    private var recent: [String: [Instant]] = [:]
    /// How many apps are counted at most (app keys come from outside).
    public static let maxApps = 1024

    /// How many apps are counted now.
    public var countedApps: Int { recent.count }

    /// `limit` 0 turns flood control off.
    public init(limit: Int = 20, window: Double = 10) {
        self.limit = limit
        self.window = window
    }

    /// Whether one more notification of `appKey` at `now` would exceed the limit.
    public func isFlooding(_ appKey: String, at now: Instant) -> Bool {
        guard limit > 0, let times = recent[KeptText.appKey(appKey).lowercased()] else { return false }
        return times.count >= limit && now.timeIntervalSince(times[times.count - limit]) < window
    }

    /// Counts a delivered notification.
    public mutating func delivered(_ appKey: String, at now: Instant) {
        guard limit > 0 else { return }
        let key = KeptText.appKey(appKey).lowercased()
        var times = recent[key, default: []]
        times.append(now)
        if times.count > limit { times.removeFirst(times.count - limit) }
        recent[key] = times
        // Forget quiet apps now and then, so hostile app names cannot grow memory; if all are
        // busy, the half counted least recently.
        if recent.count > Self.maxApps {
            recent = recent.filter { now.timeIntervalSince($0.value.last!) < window }
            if recent.count > Self.maxApps / 2 {
                let keep = recent.sorted { $0.value.last! > $1.value.last! }.prefix(Self.maxApps / 2)
                recent = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
            }
        }
    }
}
