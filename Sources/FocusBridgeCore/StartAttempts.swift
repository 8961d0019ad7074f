/// Whether a daemon command can start at all: a command that exits (or cannot be run) before it
/// ever serves notifications is tried a few times with back-off and then given up, so the bridge
/// can fall back instead of retrying a broken command forever while nothing is shown.
///
/// Only failures before the daemon served count; once it served, a later exit is a crash and
/// the spawner's own restart back-off applies.
public struct StartAttempts: Sendable, Equatable {
    /// Attempts before giving up on a command.
    public static let limit = 5
    /// The wait before the second attempt; it doubles for each further one (0.25, 0.5, 1, 2 s).
    public static let firstDelayMilliseconds: UInt32 = 250

    public enum Verdict: Equatable, Sendable {
        /// Try again after this many milliseconds.
        case retry(afterMilliseconds: UInt32)
        /// The command cannot start: fall back.
        case giveUp
    }

    /// Failed attempts in a row, since the command last served.
    public private(set) var failures = 0
    /// Why the last attempt failed.
    public private(set) var lastReason: String?

    public init() {}

    /// Counts an attempt that failed for `reason`, and says what to do next.
    public mutating func failed(_ reason: String) -> Verdict {
        failures += 1
        lastReason = reason
        guard failures < Self.limit else { return .giveUp }
        return .retry(afterMilliseconds: Self.firstDelayMilliseconds << UInt32(failures - 1))
    }

    /// The command served notifications: it can start, and the count begins again.
    public mutating func served() {
        failures = 0
        lastReason = nil
    }
}
