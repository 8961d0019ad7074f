import FocusBridgeTime

/// How long history is kept (`history-days`), and when to prune it: at start, then about daily,
/// without a wake-up of its own where it can be helped — a prune is done whenever the bridge
/// wakes anyway (a schedule boundary, a summary, a reload) once half a day has passed, and the
/// bridge's one timer is armed for it only when nothing else woke it for a whole day.
public struct HistoryRetention: Equatable, Sendable {
    /// A prune is due this long after the last one, when something wakes the bridge anyway.
    public static let minimumGap: Double = 12 * 3600
    /// And at the latest this long after it: the timer is armed for it.
    public static let maximumGap: Double = 24 * 3600

    public let days: Int

    public init(days: Int) { self.days = days }

    /// Rows received before this are forgotten (`days` is clamped so the date stays sane).
    public func cutoff(at now: Instant) -> Instant {
        now.addingTimeInterval(-Double(min(max(days, 1), 1_000_000)) * 86_400)
    }

    /// Whether to prune at `now`, the last prune having run at `last` (nil: not yet in this run).
    /// A clock set back past the last prune counts as due: better one prune too many than none
    /// for a day and more.
    public func isDue(at now: Instant, lastPruned last: Instant?) -> Bool {
        guard let last else { return true }
        return now.timeIntervalSince(last) >= Self.minimumGap || now < last
    }

    /// When the timer must wake the bridge to prune at the latest.
    public func deadline(after last: Instant) -> Instant { last.addingTimeInterval(Self.maximumGap) }
}
