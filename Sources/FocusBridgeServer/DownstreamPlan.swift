import FocusBridgeConfig
import FocusBridgeDBus
import Foundation

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

    public var mode: String {
        switch target {
        case .spawn: "spawn"
        case .name: "name"
        case .address: "address"
        case .log: "log"
        }
    }

    /// Standalone daemons `auto` looks for, in order of preference. Each of them exits when it
    /// cannot own `org.freedesktop.Notifications` and none lets another process take the name over,
    /// so they can only run behind the bridge on a bus of their own (spawn mode).
    static let standaloneDaemons = ["dunst", "mako", "swaync", "xfce4-notifyd"]

    /// The bus name the bridge serves.
    static let notificationsName = "org.freedesktop.Notifications"

    /// Resolves `settings` (and `auto`) into a plan.
    ///
    /// `nameOwner` answers the unique name owning a bus name on the session bus (nil: none, or no
    /// bus); `processID` the process behind a unique name. With `processID`, `auto` sees a standalone
    /// daemon that already owns `org.freedesktop.Notifications` and refuses with one sentence that
    /// says how to put it behind the bridge (a `PlanError` whose `runningDaemon` is set), instead of
    /// planning to spawn a daemon that could not start.
    public static func resolve(_ settings: DownstreamSettings, environment: [String: String],
                               nameOwner: (String) -> String?,
                               processID: (String) -> UInt32? = { _ in nil }) throws -> DownstreamPlan {
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
                                  reason: "address mode was asked for")
        case .spawn:
            if !settings.command.isEmpty {
                return DownstreamPlan(target: .spawn(command: settings.command), reason: "spawn mode was asked for")
            }
            guard let daemon = firstInstalledDaemon(environment: environment) else {
                throw PlanError("spawn mode needs a daemon command, and none of \(standaloneDaemons.joined(separator: ", ")) is installed")
            }
            return DownstreamPlan(target: .spawn(command: [daemon]), reason: "spawn mode, with the first installed daemon")
        case .auto:
            return try resolveAuto(settings, environment: environment, nameOwner: nameOwner, processID: processID)
        }
    }

    /// `auto`: GNOME Shell in a GNOME session; else the configured command or the first installed
    /// standalone daemon, unless one is already running on its own; else the log.
    private static func resolveAuto(_ settings: DownstreamSettings, environment: [String: String],
                                    nameOwner: (String) -> String?,
                                    processID: (String) -> UInt32?) throws -> DownstreamPlan {
        let desktop = environment["XDG_CURRENT_DESKTOP"] ?? ""
        let isGNOME = desktop.uppercased().split(separator: ":").contains("GNOME")
        if isGNOME, nameOwner("org.gnome.Shell") != nil {
            return DownstreamPlan(target: .name("org.gnome.Shell"),
                                  reason: "auto: a GNOME session (XDG_CURRENT_DESKTOP=\(desktop)) with org.gnome.Shell on the session bus")
        }
        let notGNOME = isGNOME
            ? "XDG_CURRENT_DESKTOP=\(desktop) names GNOME but org.gnome.Shell is not on the session bus"
            : "not a GNOME session (XDG_CURRENT_DESKTOP=\(desktop.isEmpty ? "<unset>" : desktop))"
        if let owner = NameOwner.lookup(notificationsName, nameOwner: nameOwner, processID: processID),
           owner.kind.isStandaloneDaemon {
            throw PlanError(conflictSentence(owner: owner, replace: false), runningDaemon: owner)
        }
        if !settings.command.isEmpty {
            return DownstreamPlan(target: .spawn(command: settings.command),
                                  reason: "auto: \(notGNOME); the configured command")
        }
        if let daemon = firstInstalledDaemon(environment: environment) {
            let name = daemon.split(separator: "/").last.map(String.init) ?? daemon
            return DownstreamPlan(target: .spawn(command: [daemon]),
                                  reason: "auto: \(notGNOME); \(name) is the first installed of \(standaloneDaemons.joined(separator: ", "))")
        }
        return DownstreamPlan(target: .log,
                              reason: "auto: \(notGNOME), and none of \(standaloneDaemons.joined(separator: ", ")) is installed")
    }

    /// The path of the first standalone daemon installed (xfce4-notifyd lives outside PATH).
    static func firstInstalledDaemon(environment: [String: String]) -> String? {
        let path = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for daemon in standaloneDaemons {
            var candidates = path.map { "\($0)/\(daemon)" }
            if daemon == "xfce4-notifyd" {
                candidates += ["/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd", "/usr/lib/xfce4/notifyd/xfce4-notifyd",
                               "/usr/libexec/xfce4/notifyd/xfce4-notifyd"]
            }
            if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
                return found
            }
        }
        return nil
    }
}

/// Why no plan could be made, in one sentence.
public struct PlanError: Error, CustomStringConvertible {
    public let description: String
    /// Set when `auto` refused because a standalone daemon already owns `org.freedesktop.Notifications`.
    public let runningDaemon: NameOwner?

    init(_ description: String, runningDaemon: NameOwner? = nil) {
        self.description = description
        self.runningDaemon = runningDaemon
    }
}

/// Who owns a bus name: the connection and, when the bus and /proc tell, its process.
public struct NameOwner: Equatable, Sendable {
    public var uniqueName: String
    public var processID: UInt32?
    /// The executable's file name (`dunst`, `gjs-console`, …).
    public var executable: String?

    public init(uniqueName: String, processID: UInt32? = nil, executable: String? = nil) {
        self.uniqueName = uniqueName
        self.processID = processID
        self.executable = executable
    }

    /// Asks the bus who owns `name` and which process that is, then /proc for its executable.
    public static func lookup(_ name: String, nameOwner: (String) -> String?,
                              processID: (String) -> UInt32?) -> NameOwner? {
        guard let unique = nameOwner(name) else { return nil }
        let pid = processID(unique)
        return NameOwner(uniqueName: unique, processID: pid,
                         executable: pid.flatMap { SenderDirectory.identity(ofProcess: $0).executable })
    }

    /// What kind of program it is, as far as the bridge knows.
    public enum Kind: Equatable, Sendable {
        /// dunst, mako, swaync or xfce4-notifyd: exits without the name, never hands it over.
        case standaloneDaemon(String)
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
        case let name? where DownstreamPlan.standaloneDaemons.contains(name): .standaloneDaemon(name)
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
    /// It names the owner and its PID and says how to put that daemon behind the bridge.
    public static func conflictSentence(owner: NameOwner, replace: Bool) -> String {
        let name = notificationsName
        switch owner.kind {
        case .standaloneDaemon(let daemon):
            return "\(name) is owned by \(owner.described), a notification daemon running on its own that never hands "
                + "the name over; to put it behind the bridge, stop it, keep it from being started by itself "
                + "(see DAEMONS in focus-bridge(1)) and start focus-bridge again: it then runs \(daemon) itself, "
                + "on a bus of its own."
        case .gnomeShell:
            if replace {
                return "\(name) is owned by GNOME Shell's notification service \(owner.described), which did not hand "
                    + "it over even to --replace; see GNOME in focus-bridge(1)."
            }
            return "\(name) is owned by GNOME Shell's notification service \(owner.described); start focus-bridge "
                + "with --replace to put GNOME Shell behind it (the installed systemd unit does)."
        case .plasma:
            return "\(name) is owned by \(owner.described), which never hands it over; to put Plasma behind the "
                + "bridge, set mode = \"name\" and name = \"org.kde.plasmashell\" in the [downstream] table and start "
                + "focus-bridge before plasmashell (see PLASMA in focus-bridge(1); experimental)."
        case .focusBridge:
            return "\(name) is owned by another \(owner.described); stop that one first "
                + "(`systemctl --user stop focus-bridge`), or talk to it with focusctl."
        case .other:
            let program = owner.executable ?? "DAEMON"
            return "\(name) is owned by \(owner.described)"
                + (replace ? ", which does not allow replacement" : "")
                + "; if it is your notification daemon, stop it, keep it from being started by itself "
                + "(see DAEMONS in focus-bridge(1)) and run it behind the bridge "
                + "(`focus-bridge --downstream spawn -- \(program)`)"
                + (replace ? "." : ", or start focus-bridge with --replace if it allows replacement.")
        }
    }

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
