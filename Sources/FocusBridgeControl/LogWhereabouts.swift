import FocusBridgeCore

/// Where focus-bridge's log goes: its standard error, whatever started it. Under a systemd unit
/// that is the journal; started by a window manager's `exec`, the window manager's own output
/// (often a display manager's `~/.xsession-errors`); from a terminal, the terminal. The bridge
/// reads what its standard error is once at start (`/proc/self/fd/2`, and whether it is the
/// stream `JOURNAL_STREAM` names) and says it in `focusctl status` and `doctor`.
extension StatusReport.Log {
    /// What standard error is, read from /proc and the environment.
    public struct Facts: Equatable, Sendable {
        /// The target of `/proc/self/fd/2` (`/dev/null`, `/dev/pts/3`, `pipe:[12]`, a file's
        /// path); nil when it is closed.
        public var target: String?
        /// Standard error is the journal's stream (`JOURNAL_STREAM` names its device and inode).
        public var journal: Bool
        /// The systemd unit the bridge runs in (`focus-bridge.service`), from its cgroup; nil when none.
        public var unit: String?
        /// The unit is the user manager's.
        public var userUnit: Bool
        public var processID: Int32

        public init(target: String?, journal: Bool, unit: String?, userUnit: Bool = true, processID: Int32) {
            self.target = target
            self.journal = journal
            self.unit = unit
            self.userUnit = userUnit
            self.processID = processID
        }
    }

    /// Where the log goes and how to read it.
    public init(_ facts: Facts) {
        let target = facts.target
        if facts.journal {
            let read = facts.unit.map { "journalctl \(facts.userUnit ? "--user " : "")-u \($0)" }
                ?? "journalctl --user _PID=\(facts.processID)"
            self.init(to: "journal", path: nil, read: read)
        } else if target == nil || target == "/dev/null" {
            self.init(to: "nowhere", path: target,
                      read: "nothing keeps it: focus-bridge's standard error is \(target ?? "closed"); start it with "
                          + "its standard error sent to a file (`focus-bridge 2>>~/.local/state/focus-bridge/log`) "
                          + "or from the systemd unit (the journal)")
        } else if let target, target.hasPrefix("/dev/pts/") || target.hasPrefix("/dev/tty") || target == "/dev/console" {
            self.init(to: "terminal", path: target, read: "the terminal focus-bridge was started from (\(target))")
        } else if let target, target.hasPrefix("/") {
            self.init(to: "file", path: target, read: "tail \(ProcessCommandLine.shellLine([target]))")
        } else {
            self.init(to: "pipe", path: nil,
                      read: "what started focus-bridge reads its standard error: the window manager's own output, "
                          + "or the display manager's session log (often ~/.xsession-errors)")
        }
    }

    /// The unit a process runs in, from the text of `/proc/PID/cgroup`: the last `.service` of
    /// its path, the user manager's own (`user@1000.service`) excepted; and whether it is a user unit.
    public static func unit(fromCgroup text: String) -> (name: String, user: Bool)? {
        for line in text.split(whereSeparator: \.isNewline).reversed() {
            let parts = line.split(separator: "/")
            guard let last = parts.last, last.hasSuffix(".service"), !last.hasPrefix("user@") else { continue }
            return (String(last), parts.contains { $0.hasPrefix("user@") && $0.hasSuffix(".service") })
        }
        return nil
    }
}
