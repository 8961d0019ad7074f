import FocusBridgeTime

// The answers of the control interface, as typed values: the daemon encodes them, focusctl
// decodes them, and the keys live here once. Times are `Timestamp` strings; an absent value is
// written as `null`, never left out (`@Nullable`), except where a key says otherwise.

import FocusBridgeCore

/// `focusctl status --json`.
public struct StatusReport: Codable, Equatable, Sendable {
    public struct Focus: Codable, Equatable, Sendable {
        public var name: String
        public var since: String
        @Nullable public var until: String?
        /// `manual`, `scheduled`, `shared` (turned on at another device, `[share]`) or `window`.
        public var source: String
        /// Why a Focus the windows turned on is on ("while VLC is fullscreen"), else null.
        @Nullable public var reason: String?
        /// The device a shared Focus was turned on at; null otherwise.
        @Nullable public var device: String?

        public init(_ active: ActiveFocus) {
            name = active.name
            since = Timestamp.string(active.since)
            until = active.until.map(Timestamp.string)
            source = active.source.rawValue
            reason = active.reason
            device = active.device
        }
    }

    public struct Downstream: Codable, Equatable, Sendable {
        public var mode: String
        public var target: String
        public var connected: Bool
        /// Why this downstream, as `focus-bridge --print-downstream` says it ("log mode was asked
        /// for", "auto: … dunst is the first installed …"), or null (bridges before it was reported).
        @Nullable public var reason: String?
        /// The daemon's own `GetServerInformation`, once it answered (nil in `log` mode).
        @Nullable public var daemon: ServerInformation?
        /// Why the daemon is not there ("cannot start dunst: …; fell back to log mode"), or null:
        /// a daemon command that cannot start shows here, not only in the log.
        @Nullable public var problem: String?
        /// What clients are told the daemon can do (`GetCapabilities`), the daemon's own once known.
        public var capabilities: [String]?
        /// The daemon's own Do Not Disturb (dunst paused, mako's mode, swaync's DND): `on` and
        /// what says so; null where the daemon has none the bridge can read.
        @Nullable public var daemonDoNotDisturb: DaemonDoNotDisturb?
        /// Every daemon command that could not start, first first (spawn mode; empty otherwise).
        public var failures: [Failure]?
        /// Why no daemon can likely start (neither DISPLAY nor WAYLAND_DISPLAY), and how to give
        /// the bridge a display, while none serves; else null.
        @Nullable public var cause: String?

        public struct Failure: Codable, Equatable, Sendable {
            public var command: String
            public var reason: String
            public var attempts: Int

            public init(_ failure: DaemonStartFailure) {
                command = failure.command
                reason = failure.reason
                attempts = failure.attempts
            }
        }

        public struct DaemonDoNotDisturb: Codable, Equatable, Sendable {
            public var on: Bool
            public var how: String
            public init(on: Bool, how: String) {
                self.on = on
                self.how = how
            }
        }

        enum CodingKeys: String, CodingKey {
            case mode, target, connected, reason, daemon, problem, capabilities, failures, cause
            case daemonDoNotDisturb = "daemon-dnd"
        }

        public init(mode: String, target: String, connected: Bool, daemon: ServerInformation? = nil,
                    problem: String? = nil, capabilities: [String]? = nil,
                    daemonDoNotDisturb: DaemonDoNotDisturb? = nil, failures: [DaemonStartFailure] = [],
                    cause: String? = nil, reason: String? = nil) {
            self.reason = reason
            self.failures = failures.map(Failure.init)
            self.cause = cause
            self.mode = mode
            self.target = target
            self.connected = connected
            self.daemon = daemon
            self.problem = problem
            self.capabilities = capabilities
            self.daemonDoNotDisturb = daemonDoNotDisturb
        }
    }

    public struct Counts: Codable, Equatable, Sendable {
        public var received: Int?
        public var delivered: Int?
        public var queued: Int?
        public var inFlight: Int?
        public var heldFocus: Int
        public var heldSummary: Int
        /// Snoozed by the person, waiting to be shown again (`focusctl snooze`).
        public var snoozed: Int

        enum CodingKeys: String, CodingKey {
            case received, delivered, queued, snoozed
            case inFlight = "in-flight"
            case heldFocus = "held-focus"
            case heldSummary = "held-summary"
        }

        public init(received: Int?, delivered: Int?, queued: Int?, inFlight: Int?, heldFocus: Int, heldSummary: Int,
                    snoozed: Int = 0) {
            self.received = received
            self.delivered = delivered
            self.queued = queued
            self.inFlight = inFlight
            self.heldFocus = heldFocus
            self.heldSummary = heldSummary
            self.snoozed = snoozed
        }

        /// `snoozed` may be missing: a focusctl upgraded while the bridge of the version before
        /// still runs reads its status all the same.
        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            received = try container.decodeIfPresent(Int.self, forKey: .received)
            delivered = try container.decodeIfPresent(Int.self, forKey: .delivered)
            queued = try container.decodeIfPresent(Int.self, forKey: .queued)
            inFlight = try container.decodeIfPresent(Int.self, forKey: .inFlight)
            heldFocus = try container.decode(Int.self, forKey: .heldFocus)
            heldSummary = try container.decode(Int.self, forKey: .heldSummary)
            snoozed = try container.decodeIfPresent(Int.self, forKey: .snoozed) ?? 0
        }
    }

    /// The state folder, and what keeps the bridge from writing there.
    public struct State: Codable, Equatable, Sendable {
        public var folder: String
        /// Whether history and held notifications are only in memory now (the folder cannot be used).
        public var inMemory: Bool
        /// What is wrong and how to fix it (one sentence), or null.
        @Nullable public var problem: String?
        /// Acknowledged notifications not written to the state folder yet: kept in memory and
        /// written once it can be.
        public var unwritten: Int
        /// Acknowledged notifications whose history could not be kept at all (past the bound of
        /// what waits in memory).
        public var lost: Int

        enum CodingKeys: String, CodingKey {
            case folder, problem, unwritten, lost
            case inMemory = "in-memory"
        }

        public init(folder: String, inMemory: Bool, problem: String?, unwritten: Int, lost: Int) {
            self.folder = folder
            self.inMemory = inMemory
            self.problem = problem
            self.unwritten = unwritten
            self.lost = lost
        }
    }

    /// The configuration file the bridge reads, and the last version of it that it refused.
    public struct Config: Codable, Equatable, Sendable {
        public var path: String
        /// The file as the bridge last refused it (the running configuration stayed), or null:
        /// the file loaded at its last reading.
        @Nullable public var refused: Refusal?

        public struct Refusal: Codable, Equatable, Sendable {
            /// When it was refused.
            public var at: String
            /// Its mistakes as `PATH:LINE:COLUMN: message`, in file order, at most `maxProblems`.
            public var problems: [String]
            /// How many mistakes it has in all.
            public var count: Int

            /// The most mistakes a status lists (`check-config` lists them all).
            public static let maxProblems = 20

            public init(at: Instant, problems: [String]) {
                self.at = Timestamp.string(at)
                self.problems = Array(problems.prefix(Self.maxProblems))
                count = problems.count
            }

            /// `PATH:LINE:COLUMN: message`, or with `(and N more: focusctl check-config lists them)`.
            public var summary: String {
                (problems.first ?? "") + (count > 1 ? " (and \(count - 1) more: focusctl check-config lists them)" : "")
            }
        }

        public init(path: String, refused: Refusal?) {
            self.path = path
            self.refused = refused
        }
    }

    /// Where the bridge's log (its standard error) goes, and how to read it.
    public struct Log: Codable, Equatable, Sendable {
        /// `journal`, `file`, `terminal`, `pipe` or `nowhere`.
        public var to: String
        /// The file or terminal, else null.
        @Nullable public var path: String?
        /// How to read it, one sentence: `journalctl --user -u focus-bridge.service`.
        public var read: String

        public init(to: String, path: String?, read: String) {
            self.to = to
            self.path = path
            self.read = read
        }
    }

    public var version: String
    public var silent: Bool
    @Nullable public var focus: Focus?
    @Nullable public var nextSummary: String?
    public var downstream: Downstream
    public var counts: Counts
    /// The apps muted now, ending first first.
    public var mutes: [MuteReport]
    /// The window in front and a fullscreen one, as the window watcher knows them.
    @Nullable public var windows: WindowReport?
    /// The state folder; absent from the answers of bridges before it was reported.
    public var state: State?
    /// The configuration file and its refusal; absent from bridges before it was reported.
    public var config: Config?
    /// Where the log goes; absent from bridges before it was reported.
    public var log: Log?

    enum CodingKeys: String, CodingKey {
        case version, silent, focus, downstream, counts, mutes, windows, state, config, log
        case nextSummary = "next-summary"
    }

    public init(version: String, silent: Bool, focus: Focus?, nextSummary: String?, downstream: Downstream, counts: Counts,
                mutes: [MuteReport] = [], windows: WindowReport? = nil, state: State? = nil, config: Config? = nil,
                log: Log? = nil) {
        self.state = state
        self.config = config
        self.log = log
        self.version = version
        self.silent = silent
        self.focus = focus
        self.nextSummary = nextSummary
        self.downstream = downstream
        self.counts = counts
        self.mutes = mutes
        self.windows = windows
    }

    /// The state a watcher shows: without the running counters, which change with every notification.
    public var watched: StatusReport {
        var copy = self
        copy.counts.received = nil
        copy.counts.delivered = nil
        copy.counts.queued = nil
        copy.counts.inFlight = nil
        copy.state?.unwritten = 0
        return copy
    }
}


/// `windows` in `focusctl status --json`: where the bridge learns which window is in front, and
/// what it knows now.
public struct WindowReport: Codable, Equatable, Sendable {
    /// `sway`, `i3`, `hyprland`, `x11`, or `off`.
    public var source: String
    /// Why it is off, else null.
    @Nullable public var problem: String?
    /// The focused window's name (app ID, WM_CLASS), or null.
    @Nullable public var focused: String?
    /// A fullscreen window's name, or null.
    @Nullable public var fullscreen: String?

    public init(source: String, problem: String?, state: WindowState) {
        self.source = source
        self.problem = problem
        focused = state.focused?.name
        fullscreen = state.fullscreen?.name
    }
}

/// One entry of `focusctl history --json`.
public struct HistoryReport: Codable, Equatable, Sendable {
    /// The most entries one `History` call lists: a larger limit is cut to it, so no call can
    /// stall the bridge or fill its memory with the whole history.
    public static let maxEntries = 1000

    public var id: UInt32
    public var app: String
    public var summary: String
    public var body: String
    public var level: String
    public var decision: String
    public var received: String
    @Nullable public var closed: String?
    @Nullable public var closeReason: UInt32?
    /// The whole fate in one line (`Fate`), and its steps (always written by the daemon).
    @Nullable public var fate: String?
    public var steps: [FateStepReport]?
    /// The browser that sent a web page's notification, whose `app` is the page's site; null for any other.
    @Nullable public var via: String?
    /// The interface it came in by (`Door`): `org.freedesktop.Notifications` or `org.gtk.Notifications`.
    public var door: String?
    /// What the person did with it, once shown (`NotificationOutcome`); null for one never shown
    /// as itself, or lost by the daemon.
    @Nullable public var outcome: String?

    enum CodingKeys: String, CodingKey {
        case id, app, summary, body, level, decision, received, closed, fate, steps, via, door, outcome
        case closeReason = "close-reason"
    }

    public init(_ entry: HistoryEntry) {
        id = entry.id
        app = entry.app
        via = entry.via
        summary = entry.summary
        body = entry.body
        level = entry.level.rawValue
        decision = entry.decision.rawValue
        received = Timestamp.string(entry.received)
        closed = entry.closed.map(Timestamp.string)
        closeReason = entry.closeReason
        fate = entry.fate()
        steps = entry.steps.map(FateStepReport.init)
        door = entry.door.interface
        outcome = entry.outcome?.rawValue
    }
}

/// `focusctl explain --json`.
public struct DecisionReport: Codable, Equatable, Sendable {
    public struct Action: Codable, Equatable, Sendable {
        public var key: String
        public var label: String
    }

    public struct Person: Codable, Equatable, Sendable {
        public var person: String
    }

    public var app: String
    public var appSource: String
    /// The browser that sent a web page's notification, whose `app` is the page's site; null for any other.
    @Nullable public var via: String?
    public var level: String
    public var decision: String
    @Nullable public var communication: Person?
    public var actions: [Action]
    public var urgency: Int
    public var suppressSound: Bool
    public var previewHidden: Bool
    public var trace: [String]

    enum CodingKeys: String, CodingKey {
        case app, via, level, decision, communication, actions, urgency, trace
        case appSource = "app-source"
        case suppressSound = "suppress-sound"
        case previewHidden = "preview-hidden"
    }

    public init(_ decision: Decision) {
        app = decision.app.key
        appSource = decision.app.source.rawValue
        via = decision.app.via
        level = decision.level.rawValue
        self.decision = decision.outcome.rawValue
        communication = decision.communication.map { Person(person: $0.person) }
        actions = decision.actions.actions.map { Action(key: $0.key, label: $0.label) }
        urgency = Int(decision.presentation.urgency)
        suppressSound = decision.presentation.suppressSound
        previewHidden = decision.presentation.summary != nil
        trace = decision.trace
    }
}

/// One entry of `focusctl focus list --json`.
public struct FocusListReport: Codable, Equatable, Sendable {
    public struct Entry: Codable, Equatable, Sendable {
        public var days: [String]
        public var start: String
        public var end: String
    }

    public var name: String
    public var active: Bool
    /// Allowed apps (`apps`), or nil when the Focus silences instead.
    public var apps: [String]?
    public var silence: [String]?
    public var people: [String]
    public var timeSensitive: Bool
    @Nullable public var previews: String?
    public var schedule: [Entry]
    /// True for the built-in `dnd` (no `[focus.dnd]` in the file).
    public var builtIn: Bool

    enum CodingKeys: String, CodingKey {
        case name, active, apps, silence, people, previews, schedule
        case timeSensitive = "time-sensitive"
        case builtIn = "built-in"
    }

    public init(_ profile: FocusProfile, active: Bool) {
        name = profile.name
        self.active = active
        switch profile.apps {
        case .allowOnly(let list): apps = list
        case .silence(let list): silence = list
        }
        people = profile.people
        timeSensitive = profile.timeSensitive
        previews = profile.previews?.rawValue
        schedule = profile.schedule.map { Entry(days: $0.days.sorted().map(\.name), start: $0.start.description,
                                                end: $0.end.description) }
        builtIn = profile.isBuiltIn
    }
}

/// `focusctl summary --json`: what the next scheduled summary holds.
public struct SummaryReport: Codable, Equatable, Sendable {
    public struct Item: Codable, Equatable, Sendable {
        public var id: UInt32
        public var app: String
        public var summary: String
        public var body: String
        public var level: String
        public var relevance: Double
        public var received: String
    }

    public struct Text: Codable, Equatable, Sendable {
        public var title: String
        public var body: String
    }

    @Nullable public var next: String?
    public var count: Int
    @Nullable public var digest: Text?
    public var items: [Item]

    /// The most items an answer lists (`count` says how many are held): the answer is built on
    /// the main loop, and what a Focus holds is not bounded.
    public static let maxItems = 1000

    public init(next: Instant?, held: [HeldNotification]) {
        let ordered = Digest.ordered(held)
        self.next = next.map(Timestamp.string)
        count = ordered.count
        digest = Digest.summary(of: ordered).map { Text(title: $0.title, body: $0.body) }
        items = ordered.prefix(Self.maxItems).map { Item(id: $0.id, app: $0.app, summary: $0.summary, body: $0.body, level: $0.level.rawValue,
                                   relevance: $0.relevance, received: Timestamp.string($0.received)) }
    }
}

/// What `FocusOn` and `FocusOff` answer: the status after the change (its keys, at the top
/// level) and `ended`, the Focus the change ended with what became of what it held, or null.
public struct FocusChangeReport: Codable, Equatable, Sendable {
    public struct Ended: Codable, Equatable, Sendable {
        public var name: String
        /// How many notifications it held when it ended.
        public var held: Int
        /// What became of them: `digest`, `replay` or `none` (the `after-focus` key).
        public var afterFocus: String

        enum CodingKeys: String, CodingKey {
            case name, held
            case afterFocus = "after-focus"
        }

        public init(name: String, held: Int, afterFocus: String) {
            self.name = name
            self.held = held
            self.afterFocus = afterFocus
        }
    }

    public var status: StatusReport
    public var ended: Ended?

    enum CodingKeys: String, CodingKey {
        case ended
    }

    public init(status: StatusReport, ended: Ended?) {
        self.status = status
        self.ended = ended
    }

    public init(from decoder: Decoder) throws {
        status = try StatusReport(from: decoder)
        ended = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Ended.self, forKey: .ended)
    }

    public func encode(to encoder: Encoder) throws {
        try status.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ended, forKey: .ended)
    }
}
