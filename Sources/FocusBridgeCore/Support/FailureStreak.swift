/// An operation that fails again and again (a write to a full disk, for every notification):
/// worth one line when it starts failing and one when it works again, not one per attempt —
/// a full disk once wrote 9,956 lines for 12,000 `Notify` calls.
public struct FailureStreak: Sendable, Equatable {
    /// Failures since the operation last worked.
    public private(set) var failures = 0

    public init() {}

    /// Counts a failure; true for the first of a streak, the one to report.
    public mutating func failed() -> Bool {
        failures += 1
        return failures == 1
    }

    /// Ends the streak: how many failures it had (to report once), nil when there was none.
    public mutating func succeeded() -> Int? {
        defer { failures = 0 }
        return failures > 0 ? failures : nil
    }
}
