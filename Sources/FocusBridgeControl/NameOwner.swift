import FocusBridgeCore

/// Who owns a bus name: the connection and, when the bus and /proc tell, its process.
public struct NameOwner: Equatable, Sendable {
    public var uniqueName: String
    public var processID: UInt32?
    /// The executable's file name (`dunst`, `gjs-console`, …).
    public var executable: String?
    /// Its command line, runnable again (`/proc/PID/cmdline`, a bare executable name made
    /// absolute from `/proc/PID/exe`): what `--replace` runs behind the bridge.
    public var command: [String]?

    public init(uniqueName: String, processID: UInt32? = nil, executable: String? = nil, command: [String]? = nil) {
        self.uniqueName = uniqueName
        self.processID = processID
        self.executable = executable
        self.command = command
    }

    /// What /proc tells of a process (`Process.read`, in NameOwner+Process.swift).
    public struct Process: Equatable, Sendable {
        public var executable: String?
        public var command: [String]?

        public init(executable: String?, command: [String]?) {
            self.executable = executable
            self.command = command
        }

    }

    /// Asks the bus who owns `name` and which process that is, then /proc for its executable
    /// and command line.
    public static func lookup(_ name: String, nameOwner: (String) -> String?, processID: (String) -> UInt32?,
                              process: (UInt32) -> Process) -> NameOwner? {
        guard let unique = nameOwner(name) else { return nil }
        let pid = processID(unique)
        let found = pid.map(process)
        return NameOwner(uniqueName: unique, processID: pid, executable: found?.executable, command: found?.command)
    }

    /// What kind of program it is, as far as the bridge knows.
    public enum Kind: Equatable, Sendable {
        /// dunst, mako, swaync, xfce4-notifyd or lxqt-notificationd: exits (or idles) without the
        /// name, never hands it over.
        case standaloneDaemon(String)
        /// notification-daemon: hands the name over to --replace, which runs it behind the bridge.
        case replaceableDaemon(String)
        /// GNOME Shell's notification service: hands the name over to --replace, takes it back later.
        case gnomeShell
        /// plasmashell: owns the name with REPLACE_EXISTING and never hands it over.
        case plasma
        /// Another focus-bridge.
        case focusBridge
        case other

        public var isStandaloneDaemon: Bool {
            if case .standaloneDaemon = self { return true }
            return false
        }
    }

    public var kind: Kind {
        switch executable {
        case let name? where KnownDaemon.named(name)?.allowsReplacement == true: .replaceableDaemon(name)
        case let name? where KnownDaemon.named(name) != nil: .standaloneDaemon(name)
        case "gnome-shell", "gjs", "gjs-console": .gnomeShell
        case "plasmashell": .plasma
        case "focus-bridge": .focusBridge
        default: .other
        }
    }

    /// "dunst (PID 4242, :1.7)".
    public var described: String {
        "\(executable ?? "an unknown program") (PID \(processID.map(String.init) ?? "unknown"), \(uniqueName))"
    }
}

extension NameOwner {
    /// The one sentence said when `org.freedesktop.Notifications` is already owned by this owner and
    /// focus-bridge cannot have it (`replace`: focus-bridge asked with --replace and still failed).
    /// It names the owner and its PID and says how to put that daemon behind the bridge;
    /// `planned`, the command `auto` would run once it is stopped, when it is known: when that is
    /// another daemon, the sentence says so and how to keep the running one.
    public func conflictSentence(replace: Bool, planned: [String]? = nil) -> String {
        let name = "org.freedesktop.Notifications"
        let owner = self
        switch kind {
        case .standaloneDaemon(let daemon):
            let start = "\(name) is owned by \(owner.described), a notification daemon running on its own that never hands "
                + "the name over; to put it behind the bridge, stop it, keep it from being started by itself "
                + "(see DAEMONS in focus-bridge(1)) and start focus-bridge again: it then runs "
            // auto runs the first installed daemon, which need not be the one the user runs now.
            if let planned, let other = KnownDaemon.running(planned)?.name, other != daemon {
                return start + "\(other), the first installed, on a bus of its own (to keep \(daemon), set "
                    + "command = [\"\(daemon)\"] in the [downstream] table)."
            }
            return start + "\(daemon) itself, on a bus of its own."
        case .gnomeShell:
            // GNOME 43's helper owns the name with REPLACE and never allows replacement, but
            // waits in the queue: the bridge must own the name before the shell starts.
            return "\(name) is owned by GNOME Shell's notification service \(owner.described), which never hands it "
                + "over, not even to --replace; focus-bridge must own the name before GNOME Shell starts: enable the "
                + "installed unit (systemctl --user enable focus-bridge.service, ordered before the shell) and log in "
                + "again; GNOME's service then waits behind the bridge and takes the name back when it stops "
                + "(see GNOME in focus-bridge(1))."
        case .plasma:
            return "\(name) is owned by \(owner.described), which never hands it over, not even to --replace; "
                + "focus-bridge must own the name before plasmashell starts: enable the installed unit "
                + "(systemctl --user enable focus-bridge.service, ordered before plasmashell) and log in again "
                + "(see Plasma in focus-bridge(1))."
        case .replaceableDaemon(let daemon):
            if replace {
                return "\(name) is owned by \(owner.described), which did not hand it over to --replace; stop it "
                    + "and start focus-bridge again: it then runs \(daemon) itself, on a bus of its own."
            }
            return "\(name) is owned by \(owner.described), which hands the name over: start focus-bridge with "
                + "--replace to take it and run \(daemon) behind the bridge (see DAEMONS in focus-bridge(1))."
        case .focusBridge:
            return "\(name) is owned by another \(owner.described); stop that one first "
                + "(`systemctl --user stop focus-bridge`), or talk to it with focusctl."
        case .other:
            let program = owner.command.map(ProcessCommandLine.shellLine) ?? owner.executable ?? "DAEMON"
            return "\(name) is owned by \(owner.described)"
                + (replace ? ", which does not allow replacement" : "")
                + "; if it is your notification daemon, stop it, keep it from being started by itself "
                + "(see DAEMONS in focus-bridge(1)) and run it behind the bridge "
                + "(`focus-bridge --downstream spawn -- \(program)`)"
                + (replace ? "." : ", or start focus-bridge with --replace if it allows replacement (it then runs it behind itself).")
        }
    }
}
