import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeSystem

/// Which downstream to use, and why: `auto` resolved against the session and the installed daemons.
public struct DownstreamPlan: Equatable, Sendable {
    public enum Target: Equatable, Sendable {
        case spawn(command: [String])
        case name(String)
        case address(String, name: String)
        case log
    }

    public let target: Target
    public let reason: String
    /// spawn: the commands to try in turn when the planned one cannot start (the other installed
    /// daemons, in `auto`'s order), before the log. Empty for a configured command: it falls back
    /// to the log at once.
    public let fallbacks: [[String]]
    /// spawn and address: the further bus names the bridge owns and passes through, the
    /// configured `passthrough-names` and the vendor names of the daemon it runs.
    public let passthroughNames: [String]
    /// The owner `--replace` takes `org.freedesktop.Notifications` from, when the plan runs its
    /// command behind the bridge (it is what the user had).
    public let evicted: NameOwner?

    public init(target: Target, reason: String, fallbacks: [[String]] = [], passthroughNames: [String] = [],
                evicted: NameOwner? = nil) {
        self.target = target
        self.reason = reason
        self.fallbacks = fallbacks
        self.passthroughNames = passthroughNames
        self.evicted = evicted
    }

    public var mode: String {
        switch target {
        case .spawn: "spawn"
        case .name: "name"
        case .address: "address"
        case .log: "log"
        }
    }

    /// The bus name the bridge serves.
    static let notificationsName = "org.freedesktop.Notifications"

    /// Resolves `settings` (and `auto`) into a plan.
    ///
    /// `nameOwner` answers the unique name owning a bus name on the session bus (nil: none, or no
    /// bus); `processID` the process behind a unique name; `process` what /proc tells of it. With
    /// `processID`, `auto` sees a standalone daemon that already owns `org.freedesktop.Notifications`
    /// and refuses with one sentence that says how to put it behind the bridge (a `PlanError` whose
    /// `runningDaemon` is set, and whose `plan` is the one once it is stopped), instead of planning
    /// to spawn a daemon that could not start. With `replacing` (--replace), the command of an owner
    /// that may hand the name over is run behind the bridge. `search` says where daemons are
    /// looked for (default: PATH and the library folders, `DaemonSearch.standard`).
    public static func resolve(_ settings: DownstreamSettings, environment: [String: String],
                               nameOwner: (String) -> String?,
                               processID: (String) -> UInt32? = { _ in nil },
                               process: (UInt32) -> NameOwner.Process = NameOwner.Process.read,
                               replacing: Bool = false,
                               search: DaemonSearch? = nil) throws -> DownstreamPlan {
        let search = search ?? DaemonSearch.standard(environment: environment)
        // Who owns the name matters to auto, and to spawn without a command under --replace.
        let owner = settings.mode == .auto || (settings.mode == .spawn && replacing)
            ? NameOwner.lookup(notificationsName, nameOwner: nameOwner, processID: processID, process: process) : nil
        switch settings.mode {
        case .log:
            return DownstreamPlan(target: .log, reason: "log mode was asked for")
        case .name:
            let name = settings.name ?? "org.gnome.Shell"
            return DownstreamPlan(target: .name(name), reason: "name mode was asked for")
        case .address:
            guard let address = settings.address else {
                throw PlanError("address mode needs an address (`[downstream] address` or --downstream-address)")
            }
            return DownstreamPlan(target: .address(address, name: settings.name ?? "org.freedesktop.Notifications"),
                                  reason: "address mode was asked for", passthroughNames: settings.passthroughNames)
        case .spawn:
            if !settings.command.isEmpty {
                return spawning(settings.command, reason: "spawn mode was asked for", settings: settings)
            }
            if replacing, let owner, let plan = runningEvicted(owner, settings: settings, search: search,
                                                                        prefix: "spawn mode") {
                return plan
            }
            let installed = search.installed()
            guard let first = installed.first else {
                throw PlanError("spawn mode needs a daemon command, and none of \(KnownDaemon.names) is installed")
            }
            return spawning([first.path], reason: "spawn mode, with the first installed daemon", settings: settings,
                            fallbacks: installed.dropFirst().map { [$0.path] })
        case .auto:
            return try resolveAuto(settings, environment: environment, nameOwner: nameOwner, owner: owner,
                                   replacing: replacing, search: search)
        }
    }

    /// A spawn plan for `command`, with the vendor names of the daemon it runs passed through.
    private static func spawning(_ command: [String], reason: String, settings: DownstreamSettings,
                                 fallbacks: [[String]] = [], evicted: NameOwner? = nil) -> DownstreamPlan {
        var names = settings.passthroughNames
        for name in KnownDaemon.running(command)?.vendorNames ?? [] where !names.contains(name) { names.append(name) }
        return DownstreamPlan(target: .spawn(command: command), reason: reason, fallbacks: fallbacks,
                              passthroughNames: names, evicted: evicted)
    }

    /// `--replace` and an owner that may hand the name over: its own command, run behind the
    /// bridge (it is what the user had), then the installed daemons. nil for owners that are
    /// not run again: GNOME Shell and Plasma (forwarded to instead), another focus-bridge, and
    /// any owner whose command line /proc does not tell.
    private static func runningEvicted(_ owner: NameOwner, settings: DownstreamSettings, search: DaemonSearch,
                                       prefix: String) -> DownstreamPlan? {
        switch owner.kind {
        case .replaceableDaemon, .other: break
        default: return nil
        }
        guard let command = owner.command, !command.isEmpty else { return nil }
        let fallbacks = search.installed().filter { $0.daemon.name != owner.executable }.map { [$0.path] }
        return spawning(command, reason: "\(prefix); --replace takes \(notificationsName) from \(owner.described) "
                            + "and runs the same command behind the bridge",
                        settings: settings, fallbacks: fallbacks, evicted: owner)
    }

    /// `auto`: GNOME Shell in a GNOME session; else the configured command, the command of the
    /// owner --replace evicts, or the first installed known daemon (the others as fallbacks); else
    /// the log. A standalone daemon already running on its own refuses all but GNOME, with that
    /// plan in the error.
    private static func resolveAuto(_ settings: DownstreamSettings, environment: [String: String],
                                    nameOwner: (String) -> String?, owner: NameOwner?,
                                    replacing: Bool, search: DaemonSearch) throws -> DownstreamPlan {
        let desktop = environment["XDG_CURRENT_DESKTOP"] ?? ""
        if let shell = DesktopShell(xdgCurrentDesktop: desktop) {
            // The shell is the daemon there, and it starts after the bridge (the bridge must own
            // the name first): wait for its name rather than run another daemon meanwhile.
            let there = nameOwner(shell.busName) != nil
            return DownstreamPlan(target: .name(shell.busName),
                                  reason: "auto: a \(shell.desktop) session (XDG_CURRENT_DESKTOP=\(desktop)); "
                                      + "forwarding to \(shell.busName)" + (there ? "" : ", once it is on the session bus"))
        }
        let notGNOME = "not a GNOME or Plasma session (XDG_CURRENT_DESKTOP=\(desktop.isEmpty ? "<unset>" : desktop))"
        let installed = search.installed()
        let plan: DownstreamPlan
        if !settings.command.isEmpty {
            plan = spawning(settings.command, reason: "auto: \(notGNOME); the configured command", settings: settings)
        } else if replacing, let owner,
                  let evictedPlan = runningEvicted(owner, settings: settings, search: search, prefix: "auto: \(notGNOME)") {
            plan = evictedPlan
        } else if let first = installed.first {
            plan = spawning([first.path],
                            reason: "auto: \(notGNOME); \(first.daemon.name) is the first installed of \(KnownDaemon.names)",
                            settings: settings, fallbacks: installed.dropFirst().map { [$0.path] })
        } else {
            plan = DownstreamPlan(target: .log, reason: "auto: \(notGNOME), and none of \(KnownDaemon.names) is installed")
        }
        if let owner, owner.kind.isStandaloneDaemon {
            var planned: [String]?
            if case .spawn(let command) = plan.target { planned = command }
            throw PlanError(conflictSentence(owner: owner, replace: false, planned: planned), runningDaemon: owner, plan: plan)
        }
        return plan
    }
}

/// Why no plan could be made, in one sentence.
public struct PlanError: Error, CustomStringConvertible {
    public let description: String
    /// Set when `auto` refused because a standalone daemon already owns `org.freedesktop.Notifications`.
    public let runningDaemon: NameOwner?
    /// The plan once that daemon is stopped (`--print-downstream` prints it all the same).
    public let plan: DownstreamPlan?

    init(_ description: String, runningDaemon: NameOwner? = nil, plan: DownstreamPlan? = nil) {
        self.description = description
        self.runningDaemon = runningDaemon
        self.plan = plan
    }
}

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

    /// What /proc tells of a process.
    public struct Process: Equatable, Sendable {
        public var executable: String?
        public var command: [String]?

        public init(executable: String?, command: [String]?) {
            self.executable = executable
            self.command = command
        }

        /// Reads `/proc/PID/exe` and `/proc/PID/cmdline`.
        public static func read(_ pid: UInt32) -> Process {
            let exe = try? FileStatus.symbolicLinkDestination("/proc/\(pid)/exe")
            // A command line is at most a few hundred KiB (the kernel's argument limit).
            let bytes = try? FileReading.readRegularFile("/proc/\(pid)/cmdline", limit: 4 << 20)
            return Process(executable: SenderDirectory.identity(ofProcess: pid).executable,
                           command: bytes.flatMap(ProcessCommandLine.parse)
                               .map { ProcessCommandLine.runnable($0, executablePath: exe) })
        }
    }

    /// Asks the bus who owns `name` and which process that is, then /proc for its executable
    /// and command line.
    public static func lookup(_ name: String, nameOwner: (String) -> String?, processID: (String) -> UInt32?,
                              process: (UInt32) -> Process = Process.read) -> NameOwner? {
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

extension DownstreamPlan {
    /// The one sentence said when `org.freedesktop.Notifications` is already owned by `owner` and
    /// focus-bridge cannot have it (`replace`: focus-bridge asked with --replace and still failed).
    /// It names the owner and its PID and says how to put that daemon behind the bridge;
    /// `planned`, the command `auto` would run once it is stopped, when it is known: when that is
    /// another daemon, the sentence says so and how to keep the running one.
    public static func conflictSentence(owner: NameOwner, replace: Bool, planned: [String]? = nil) -> String {
        let name = notificationsName
        switch owner.kind {
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

    /// `MODE: TARGET (REASON)`, the line `--print-downstream` prints.
    public var line: String { "\(mode): \(targetDescription) (\(reason))" }

    /// The daemon command, bus name or address in words.
    public var targetDescription: String {
        switch target {
        case .spawn(let command): command.joined(separator: " ")
        case .name(let name): name
        case .address(let address, let name): "\(name) at \(address)"
        case .log: "standard output"
        }
    }
}
