import FocusBridgeTime

/// Who called lately, for repeated calls (focus-bridge.toml(5), `repeated-calls`): as on iOS, a
/// second call from the same person within `window` breaks through a Focus that allows repeated
/// calls. Bounded: at most `capacity` people, calls older than the window forgotten.
public struct RecentCalls: Sendable {
    public static let window: Double = 180
    public static let capacity = 256
    private var last: [String: Instant] = [:]

    public init() {}

    public var count: Int { last.count }

    /// The last call from `person` (without regard to case) within the window before `now`.
    public func calledRecently(_ person: String, now: Instant) -> Instant? {
        guard let at = last[person.lowercased()], now.timeIntervalSince1970 - at.timeIntervalSince1970 <= Self.window,
              at.timeIntervalSince1970 <= now.timeIntervalSince1970 else { return nil }
        return at
    }

    /// `person` called at `now`.
    public mutating func called(_ person: String, at now: Instant) {
        if last.count >= Self.capacity {
            last = last.filter { now.timeIntervalSince1970 - $0.value.timeIntervalSince1970 <= Self.window }
            if last.count >= Self.capacity, let oldest = last.min(by: { $0.value.timeIntervalSince1970 < $1.value.timeIntervalSince1970 }) {
                last[oldest.key] = nil
            }
        }
        last[person.lowercased()] = now
    }
}
