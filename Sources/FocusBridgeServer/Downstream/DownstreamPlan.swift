import FocusBridgeConfig
import FocusBridgeControl
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
            return DownstreamPlan(target: .log, reason: DownstreamReason.asked("log"))
        case .name:
            let name = settings.name ?? "org.gnome.Shell"
            return DownstreamPlan(target: .name(name), reason: DownstreamReason.asked("name"))
        case .address:
            guard let address = settings.address else {
                throw PlanError("address mode needs an address (`[downstream] address` or --downstream-address)")
            }
            return DownstreamPlan(target: .address(address, name: settings.name ?? "org.freedesktop.Notifications"),
                                  reason: DownstreamReason.asked("address"), passthroughNames: settings.passthroughNames)
        case .spawn:
            if !settings.command.isEmpty {
                return spawning(settings.command, reason: DownstreamReason.asked("spawn"), settings: settings)
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
            throw PlanError(owner.conflictSentence(replace: false, planned: planned), runningDaemon: owner, plan: plan)
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

extension DownstreamPlan {
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
