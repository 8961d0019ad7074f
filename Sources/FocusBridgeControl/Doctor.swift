import FocusBridgeCore
import FocusBridgeTime

/// `focusctl doctor`: what is wrong with this session's FocusBridge, each check one line with
/// the one sentence that fixes it. The checks are pure functions of the facts focusctl gathers
/// (`Doctor.Facts`: the bus, the bridge's status, files read); `Doctor.checks` decides.
public enum Doctor {
    /// What focusctl found, read once; every check reads only this.
    public struct Facts: Sendable {
        public var environment: [String: String]
        /// Why no session bus answers, or nil when one does.
        public var noBus: String?
        /// The running bridge's status, nil when none answers on the bus.
        public var status: StatusReport?
        /// The running bridge's process.
        public var bridgeProcessID: UInt32?
        /// Why the bridge that owns the control name did not answer `Status`, when it did not.
        public var unanswered: String?
        /// Who owns `org.freedesktop.Notifications` while the bridge is not running, and
        /// `org.gtk.Notifications` (GNOME's GTK door) either way.
        public var notificationsOwner: NameOwner?
        public var gtkOwner: NameOwner?
        public var config: Config
        /// A user systemd manager runs the session.
        public var userManager: Bool
        /// focus-bridge.service where systemd finds it, and its enabling links.
        public var unitPath: String?
        public var unitLinks: [String]
        /// Enabling links of other daemons' units (`…/default.target.wants/dunst.service`).
        public var otherUnitLinks: [(daemon: String, link: String)]
        /// The autostart entries in effect (an earlier folder's file hides a later one of the
        /// same name), first folder first.
        public var autostart: [AutostartEntry]
        /// The session's start files found, with their texts.
        public var startFiles: [(file: StartFile, text: String)]
        /// The activation files offering `org.freedesktop.Notifications`, per service folder,
        /// in the bus's order (only folders that have one).
        public var activation: [(folder: String, files: [ActivationFile])]
        /// The installed focus-bridge (on PATH, or the running one's).
        public var programPath: String?
        public var state: State
        /// `[share] folder`, when set: the folder and what keeps it from working, if anything.
        public var share: Share?

        public init(environment: [String: String], noBus: String? = nil, status: StatusReport? = nil,
                    bridgeProcessID: UInt32? = nil, unanswered: String? = nil, notificationsOwner: NameOwner? = nil, gtkOwner: NameOwner? = nil,
                    config: Config, userManager: Bool = false, unitPath: String? = nil, unitLinks: [String] = [],
                    otherUnitLinks: [(daemon: String, link: String)] = [], autostart: [AutostartEntry] = [],
                    startFiles: [(file: StartFile, text: String)] = [],
                    activation: [(folder: String, files: [ActivationFile])] = [], programPath: String? = nil,
                    state: State, share: Share? = nil) {
            self.environment = environment
            self.noBus = noBus
            self.status = status
            self.bridgeProcessID = bridgeProcessID
            self.unanswered = unanswered
            self.notificationsOwner = notificationsOwner
            self.gtkOwner = gtkOwner
            self.config = config
            self.userManager = userManager
            self.unitPath = unitPath
            self.unitLinks = unitLinks
            self.otherUnitLinks = otherUnitLinks
            self.autostart = autostart
            self.startFiles = startFiles
            self.activation = activation
            self.programPath = programPath
            self.state = state
            self.share = share
        }

        /// The configuration file as focusctl loaded it.
        public struct Config: Sendable {
            public var path: String
            public var exists: Bool
            /// Its mistakes (`PATH:LINE:COLUMN: message`), empty when it loads.
            public var problems: [String]

            public init(path: String, exists: Bool, problems: [String] = []) {
                self.path = path
                self.exists = exists
                self.problems = problems
            }
        }

        /// The state database, as read while no bridge runs here (a running one reports its own).
        public enum State: Equatable, Sendable {
            /// Not made yet (no bridge ever ran with this folder).
            case absent(folder: String)
            case healthy(path: String)
            /// Another focus-bridge (not on this session bus) holds the folder.
            case inUse(folder: String, processID: Int32?)
            /// SQLite finds it damaged, or it is not a database.
            case broken(path: String, reason: String)
            /// It cannot be read (permissions, a symbolic link, a folder that is not one).
            case unusable(path: String, reason: String)
        }

        public struct Share: Equatable, Sendable {
            public var folder: String
            /// What keeps it from working (missing, not writable), nil when it works.
            public var problem: String?
            /// Devices seen there, when the bridge said.
            public var devices: Int?

            public init(folder: String, problem: String?, devices: Int? = nil) {
                self.folder = folder
                self.problem = problem
                self.devices = devices
            }
        }
    }

    /// One check: `ok`, what was found, and the one sentence that fixes it (nil when ok).
    public struct Check: Codable, Equatable, Sendable {
        /// `session-bus`, `bridge`, `daemon`, `gtk-door`, `config`, `start`, `activation`,
        /// `other-daemon`, `state`, `share`, `log`.
        public var check: String
        public var ok: Bool
        public var found: String
        @Nullable public var fix: String?

        public init(_ check: String, ok: Bool, found: String, fix: String? = nil) {
            self.check = check
            self.ok = ok
            self.found = found
            self.fix = ok ? nil : fix
        }
    }

    /// `focusctl doctor --json`.
    public struct Report: Codable, Equatable, Sendable {
        public var ok: Bool
        public var checks: [Check]

        public init(_ checks: [Check]) {
            self.checks = checks
            ok = checks.allSatisfy(\.ok)
        }
    }

    static let notifications = "org.freedesktop.Notifications"

    /// Every check, in the order a person reads them: the bus and the bridge, its daemon, the
    /// configuration, starting with the session and what else would start, the state, sharing,
    /// the log.
    public static func checks(_ facts: Facts) -> [Check] {
        var checks: [Check] = []
        if let noBus = facts.noBus {
            checks.append(Check("session-bus", ok: false,
                                found: "no session bus: \(noBus); the bridge and its daemon were not checked",
                                fix: "run focusctl doctor inside your graphical session, where DBUS_SESSION_BUS_ADDRESS is set"))
        } else {
            checks.append(bridge(facts))
            if let status = facts.status { checks.append(daemon(status, facts)) }
            if let gtk = gtkDoor(facts) { checks.append(gtk) }
        }
        checks.append(config(facts))
        checks.append(start(facts))
        checks.append(activation(facts))
        checks += otherDaemons(facts)
        checks.append(state(facts))
        if let share = facts.share { checks.append(Self.share(share)) }
        if let log = facts.status?.log { checks.append(Self.log(log)) }
        return checks
    }

    // MARK: The bridge and its daemon

    static func bridge(_ facts: Facts) -> Check {
        if let status = facts.status {
            let pid = facts.bridgeProcessID.map { " (PID \($0))" } ?? ""
            return Check("bridge", ok: true, found: "focus-bridge \(status.version) runs\(pid) and owns \(notifications)")
        }
        if let unanswered = facts.unanswered {
            let pid = facts.bridgeProcessID.map { "PID \($0)" } ?? "PID unknown"
            return Check("bridge", ok: false, found: "focus-bridge (\(pid)) owns its name but does not answer: \(unanswered)",
                         fix: "restart it: " + (facts.userManager && !facts.unitLinks.isEmpty
                             ? "systemctl --user restart focus-bridge"
                             : "kill \(facts.bridgeProcessID.map(String.init) ?? "its PID"), then focus-bridge &"))
        }
        let kind = SessionKind(environment: facts.environment)
        let now = StartAdvice.startNow(unitInstalled: facts.unitPath != nil, userManager: facts.userManager)
        guard let owner = facts.notificationsOwner else {
            return Check("bridge", ok: false,
                         found: "focus-bridge is not running, and nothing owns \(notifications): notifications fail, "
                             + "or start another daemon by D-Bus activation",
                         fix: "start it: \(now)" + (kind == .unknown ? "" : " (on \(kind.name))"))
        }
        var found = "focus-bridge is not running; \(notifications) is owned by \(owner.described)"
        if let gtk = facts.gtkOwner { found += ", and org.gtk.Notifications by \(gtk.described)" }
        return Check("bridge", ok: false, found: found, fix: owner.conflictSentence(replace: false))
    }

    /// On GNOME the running bridge must serve `org.gtk.Notifications` too: started after GNOME
    /// Shell, it waits behind the shell, and GNotification and Flatpak apps go around it.
    static func gtkDoor(_ facts: Facts) -> Check? {
        guard facts.status != nil, let bridgeProcessID = facts.bridgeProcessID else { return nil }
        let gnome = (facts.environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":")
            .contains { $0.uppercased() == "GNOME" }
        guard let owner = facts.gtkOwner else {
            guard gnome else { return nil }
            return Check("gtk-door", ok: false, found: "nobody serves org.gtk.Notifications in this GNOME session",
                         fix: "restart focus-bridge before GNOME Shell: log out and in (focus-bridge(1), GNOME)")
        }
        if owner.processID == bridgeProcessID {
            return Check("gtk-door", ok: true, found: "focus-bridge serves org.gtk.Notifications too (GNotification and Flatpak apps)")
        }
        return Check("gtk-door", ok: false,
                     found: "org.gtk.Notifications is served by \(owner.described), not by focus-bridge: GNotification and Flatpak apps go around it",
                     fix: "log out and in, so that focus-bridge starts before GNOME Shell (focus-bridge(1), GNOME)")
    }

    static func daemon(_ status: StatusReport, _ facts: Facts) -> Check {
        let downstream = status.downstream
        let failed = downstream.failures ?? []
        if downstream.mode == "log" {
            if downstream.reason == DownstreamReason.asked("log") && failed.isEmpty {
                return Check("daemon", ok: true, found: "log mode, as the configuration asks: notifications are printed in the log, not shown")
            }
            let why = downstream.problem ?? "none of \(KnownDaemon.names) is installed"
            let fix = downstream.cause
                ?? failed.first.map { "run `\($0.command)` by hand to see why it cannot start" }
                ?? "install a notification daemon (dunst, mako, …) and restart focus-bridge"
            return Check("daemon", ok: false, found: "no daemon shows notifications, only the log has them: \(why)", fix: fix)
        }
        let target = "\(downstream.mode): \(downstream.target)"
        guard downstream.connected else {
            let why = downstream.problem.map { ": \($0)" } ?? ""
            let fix: String
            if let cause = downstream.cause {
                fix = cause
            } else {
                switch downstream.mode {
                case "spawn": fix = "run `\(downstream.target)` by hand to see why it does not serve"
                case "name": fix = "start \(downstream.target) (the bridge forwards to it once it is on the session bus)"
                default: fix = "start the daemon's bus (the bridge connects once a bus listens there)"
                }
            }
            return Check("daemon", ok: false, found: "the daemon behind it is not connected (\(target))\(why)", fix: fix)
        }
        let who = downstream.daemon?.line ?? downstream.target
        var found = "\(who) is behind it, connected (\(target))"
        if let problem = downstream.problem { found += "; \(problem)" }
        return Check("daemon", ok: true, found: found)
    }

    // MARK: The configuration

    static func config(_ facts: Facts) -> Check {
        let config = facts.config
        let running = facts.status != nil
        if let first = config.problems.first {
            let more = config.problems.count > 1 ? " (and \(config.problems.count - 1) more)" : ""
            return Check("config", ok: false, found: "the configuration does not load: \(first)\(more)",
                         fix: running
                             ? "correct it (focusctl check-config lists every mistake); focus-bridge keeps the configuration it runs until the file loads"
                             : "correct it (focusctl check-config lists every mistake): focus-bridge does not start with it")
        }
        if let refused = facts.status?.config?.refused {
            return Check("config", ok: false,
                         found: "\(config.path) loads now, but focus-bridge refused it at \(time(refused.at)) and still runs the configuration from before",
                         fix: "focusctl reload")
        }
        guard config.exists else {
            return Check("config", ok: true, found: "no configuration file at \(config.path): the defaults are in use")
        }
        return Check("config", ok: true, found: "\(config.path) loads")
    }

    // MARK: Starting with the session

    static func start(_ facts: Facts) -> Check {
        let kind = SessionKind(environment: facts.environment)
        var starters: [String] = []
        if facts.userManager, let link = facts.unitLinks.first {
            starters.append("\(StartAdvice.unitName) is enabled (\(link))")
        }
        if !facts.userManager && kind.readsAutostart,
           let entry = facts.autostart.first(where: { $0.program == "focus-bridge" && $0.runs(in: desktops(facts)) }) {
            starters.append("the autostart entry \(entry.path) starts it (\(kind.name) runs autostart entries)")
        }
        for (file, text) in facts.startFiles {
            if let mention = file.mentions(in: text, of: ["focus-bridge"]).first {
                starters.append("\(mention.place) starts it (`\(mention.text)`)")
            }
        }
        if let first = starters.first {
            return Check("start", ok: true, found: first)
        }
        let why: String
        if facts.userManager {
            why = facts.unitPath.map { "\(StartAdvice.unitName) is installed (\($0)) but not enabled" }
                ?? "a user systemd manager runs the session, but no \(StartAdvice.unitName) is in its unit folders"
        } else if kind.readsAutostart {
            why = "no user systemd manager runs the session, and no autostart entry starts focus-bridge"
        } else if kind == .unknown {
            // Desktops name themselves (XDG_CURRENT_DESKTOP); a session that does not is most
            // likely a window manager started by startx, which runs no autostart entries.
            why = "no user systemd manager runs the session, XDG_CURRENT_DESKTOP names no desktop that runs "
                + "autostart entries, and no start-up file (~/.xinitrc, a window manager's configuration) starts focus-bridge"
        } else {
            let entry = facts.autostart.contains { $0.program == "focus-bridge" }
            why = "no user systemd manager runs the session"
                + (entry ? ", \(kind.name) does not run the autostart entry" : "")
                + ", and no start-up line of \(kind.name) starts focus-bridge"
        }
        let startFile = facts.startFiles.first?.file
            ?? StartFile.candidates(for: kind, environment: facts.environment).first
        let autostartFolder = AutostartEntry.folders(environment: facts.environment)[0]
        return Check("start", ok: false, found: "nothing starts focus-bridge with the session: \(why)",
                     fix: StartAdvice.withSession(kind: kind, userManager: facts.userManager, unitInstalled: facts.unitPath != nil,
                                                  autostartFolder: autostartFolder, startFile: startFile))
    }

    /// The first folder's activation files decide what a notification sent while nothing owns
    /// the name starts; an enabled unit starts focus-bridge before the session's applications,
    /// so then no other file gets its turn.
    static func activation(_ facts: Facts) -> Check {
        guard let (folder, files) = facts.activation.first else {
            return Check("activation", ok: true, found: "no D-Bus activation file offers \(notifications)")
        }
        let ours = facts.activation.flatMap(\.files).first(where: \.isFocusBridge)
        let others = files.filter { !$0.isFocusBridge }
        if others.isEmpty {
            return Check("activation", ok: true,
                         found: "FocusBridge's activation file \(files[0].path) comes first: a notification sent before "
                             + "focus-bridge runs starts it")
        }
        let other = others[0]
        let enabledUnit = facts.userManager && !facts.unitLinks.isEmpty
        // Two files for the name in one folder: the bus takes either (dbus-daemon(1)).
        let what = others.count == 1
            ? "\(other.path) (\(other.starts))"
            : "\(others.count) files in \(folder) (\(others.map(\.starts).joined(separator: ", ")), one chosen by the bus)"
        let race = files.contains(where: \.isFocusBridge)
            ? "\(what) and FocusBridge's \(files.first(where: \.isFocusBridge)!.path) are in the same folder: the bus takes either"
            : "\(what) \(others.count == 1 ? "comes" : "come") first: a notification sent while focus-bridge is not running "
                + "starts \(others.count == 1 ? other.starts : "one of them"), and focus-bridge cannot start after it"
        if enabledUnit {
            return Check("activation", ok: true,
                         found: "\(what) \(others.count == 1 ? "comes" : "come") first, but the enabled \(StartAdvice.unitName) "
                             + "owns the name before the session's applications start")
        }
        let fix: String
        // The person's own folder of the search path: $XDG_DATA_HOME's, second after the runtime
        // folder (which is for services made at run time, and never watched by the bus).
        let userFolder = ActivationFile.userFolder(environment: facts.environment)
        if ours != nil && others.allSatisfy({ !$0.path.hasPrefix("/usr/") && !$0.path.hasPrefix("/etc/") }) {
            // Files of the person's own, before or beside FocusBridge's.
            fix = "remove " + others.map(\.path).joined(separator: " ")
        } else {
            let program = facts.programPath ?? "focus-bridge"
            let path = userFolder + "/" + notifications + ".service"
            fix = "put FocusBridge's activation file first: mkdir -p \(userFolder) && printf '[D-BUS Service]\\nName="
                + "\(notifications)\\nExec=\(program)\\n" + (facts.userManager ? "SystemdService=\(StartAdvice.unitName)\\n" : "")
                + "' > \(path)"
        }
        return Check("activation", ok: false, found: race, fix: fix)
    }

    /// What else starts a notification daemon at login: its autostart entry (where the session
    /// runs them), a line of the window manager's configuration, its enabled user unit. Each is
    /// a check of its own; none is one ✓.
    static func otherDaemons(_ facts: Facts) -> [Check] {
        let names = KnownDaemon.all.map(\.name)
        let kind = SessionKind(environment: facts.environment)
        var checks: [Check] = []
        let ownAutostart = AutostartEntry.folders(environment: facts.environment)[0]
        if kind.readsAutostart {
            for entry in facts.autostart {
                guard let program = entry.program, names.contains(program), entry.runs(in: desktops(facts)) else { continue }
                let name = entry.path.split(separator: "/").last.map(String.init) ?? entry.path
                let fix = entry.path.hasPrefix(ownAutostart + "/")
                    ? "remove \(entry.path) (focus-bridge runs \(program) behind itself)"
                    : "hide it: printf '[Desktop Entry]\\nHidden=true\\n' > \(ownAutostart)/\(name)"
                checks.append(Check("other-daemon", ok: false,
                                    found: "the autostart entry \(entry.path) starts \(program) at login, before focus-bridge can own the name",
                                    fix: fix))
            }
        }
        for (file, text) in facts.startFiles {
            for mention in file.mentions(in: text, of: names) {
                checks.append(Check("other-daemon", ok: false,
                                    found: "\(mention.place) starts \(mention.program) at login (`\(mention.text)`)",
                                    fix: "remove that line: focus-bridge runs \(mention.program) behind itself"))
            }
        }
        if facts.userManager {
            for (daemon, link) in facts.otherUnitLinks {
                checks.append(Check("other-daemon", ok: false,
                                    found: "\(daemon).service is enabled (\(link)) and starts \(daemon) with the session",
                                    fix: "systemctl --user disable \(daemon).service"))
            }
        }
        if checks.isEmpty {
            checks.append(Check("other-daemon", ok: true,
                                found: "nothing else starts a notification daemon at login (autostart entries, start-up lines, user units)"))
        }
        return checks
    }

    // MARK: State, sharing, the log

    static func state(_ facts: Facts) -> Check {
        if let state = facts.status?.state {
            if state.inMemory || state.problem != nil {
                return Check("state", ok: false, found: "the state folder \(state.folder) cannot be used fully",
                             fix: state.problem ?? "make \(state.folder) writable")
            }
            if state.lost > 0 {
                return Check("state", ok: false,
                             found: "\(Count.of(state.lost, "notification")) could not be kept in history (the state folder was not writable for long)",
                             fix: "nothing brings them back; keep \(state.folder) writable (see THE STATE FOLDER in focus-bridge(1))")
            }
            return Check("state", ok: true, found: "the state database in \(state.folder) is in use by focus-bridge and written")
        }
        switch facts.state {
        case .absent(let folder):
            return Check("state", ok: true, found: "no state database yet: focus-bridge makes one in \(folder) at its first start")
        case .healthy(let path):
            return Check("state", ok: true, found: "\(path) passes SQLite's quick_check")
        case .inUse(let folder, let pid):
            let who = pid.map { "PID \($0)" } ?? "PID unknown"
            return Check("state", ok: false,
                         found: "another focus-bridge (\(who)) holds the state folder \(folder), but not on this session bus",
                         fix: "stop it (" + (pid.map { "kill \($0)" } ?? "it holds \(folder)/focus-bridge.lock")
                             + ") and start focus-bridge in this session")
        case .broken(let path, let reason):
            return Check("state", ok: false, found: "the state database \(path) is broken (\(reason))",
                         fix: "start focus-bridge: it moves the broken file aside (keeping it) and starts a fresh one")
        case .unusable(let path, let reason):
            return Check("state", ok: false, found: "the state database \(path) cannot be read (\(reason))",
                         fix: "make it and its folder yours and writable (chmod u+rw), or give focus-bridge another with --state-dir")
        }
    }

    static func share(_ share: Facts.Share) -> Check {
        if let problem = share.problem {
            return Check("share", ok: false, found: "the share folder \(share.folder) does not work: \(problem)",
                         fix: "create it, writable, and have your sync tool share it (focus-bridge.toml(5), THE SHARE TABLE)")
        }
        let devices = share.devices.map { " (\(Count.of($0, "other device")) seen)" } ?? ""
        return Check("share", ok: true, found: "the share folder \(share.folder) is there and writable\(devices)")
    }

    static func log(_ log: StatusReport.Log) -> Check {
        if log.to == "nowhere" {
            return Check("log", ok: false, found: "focus-bridge's log goes nowhere (its standard error is \(log.path ?? "closed"))",
                         fix: "start it with its standard error sent to a file (`focus-bridge 2>>~/.local/state/focus-bridge/log`) or from the systemd unit")
        }
        return Check("log", ok: true, found: "its log: \(log.read)")
    }

    /// The desktops `XDG_CURRENT_DESKTOP` names.
    static func desktops(_ facts: Facts) -> [String] {
        (facts.environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map(String.init)
    }

    /// A report's time in words: `2026-11-21T21:00:00.123Z` as the process's local `HH:MM`.
    static func time(_ text: String) -> String {
        Timestamp.parse(text).map(Fate.localTime) ?? text
    }
}
