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

/// A daemon command given up on: it could not start in `StartAttempts.limit` attempts. The
/// bridge keeps every one, first first, so the failure that mattered (dunst's, tried first) is
/// not hidden behind the last fallback's.
public struct DaemonStartFailure: Equatable, Sendable {
    /// The command line, as one text.
    public var command: String
    /// Why its last attempt failed ("it exited with status 1 before it served notifications").
    public var reason: String
    public var attempts: Int

    public init(command: String, reason: String, attempts: Int = StartAttempts.limit) {
        self.command = command
        self.reason = reason
        self.attempts = attempts
    }

    /// `cannot start dunst: it exited with status 1 before it served notifications (5 attempts)`.
    public var sentence: String { "cannot start \(command): \(reason) (\(attempts) attempts)" }

    /// Why daemons likely cannot start, read from focus-bridge's own environment (the daemons
    /// get it): with neither `DISPLAY` nor `WAYLAND_DISPLAY` no daemon can draw. The sentence
    /// says how to give the bridge the display, for the way it was started (`INVOCATION_ID`: by
    /// a systemd unit). nil when a display is set.
    public static func likelyCause(environment: [String: String]) -> String? {
        func set(_ key: String) -> Bool { !(environment[key] ?? "").isEmpty }
        guard !set("DISPLAY"), !set("WAYLAND_DISPLAY") else { return nil }
        let missing = "neither DISPLAY nor WAYLAND_DISPLAY is set in focus-bridge's environment, so no daemon can open a display"
        if set("INVOCATION_ID") {
            return missing + "; the user manager started it before the graphical session gave it the display: have the "
                + "session run `systemctl --user import-environment DISPLAY WAYLAND_DISPLAY` before focus-bridge starts "
                + "(window managers: in their start-up), then `systemctl --user restart focus-bridge`"
        }
        return missing + "; start focus-bridge from inside the graphical session (`exec focus-bridge` in the window "
            + "manager's configuration), where they are set"
    }
}
