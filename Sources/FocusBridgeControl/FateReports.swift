import FocusBridgeCore
import FocusBridgeTime

// The control interface's answers about one notification's fate: explain ID, show, dismiss,
// digest show-all (focusctl(1)). Absent values are written as `null`, never left out.

/// One step of a fate (`Fate`), as `history --json` and `explain ID --json` list them.
public struct FateStepReport: Codable, Equatable, Sendable {
    public var step: String
    public var at: String
    /// The digest (`in-digest`), the copy (`shown-again`) or the original (`copy-of`).
    public var number: UInt32?
    public var detail: String?

    public init(_ step: FateStep) {
        self.step = step.kind
        at = Timestamp.string(step.at)
        number = step.number
        detail = step.detail
    }

    public var fateStep: FateStep {
        FateStep(kind: step, at: Timestamp.parse(at) ?? Instant(timeIntervalSince1970: 0), number: number, detail: detail)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(step, forKey: .step)
        try container.encode(at, forKey: .at)
        try container.encode(number, forKey: .number)
        try container.encode(detail, forKey: .detail)
    }
}

/// `focusctl explain ID --json`: the notification as it was received and decided then, what
/// became of it, and how it would be decided now.
public struct ExplainIDReport: Codable, Equatable, Sendable {
    /// What was kept of how it was received; null for a row from before it was kept.
    public struct Then: Codable, Equatable, Sendable {
        public var appName: String
        public var hints: [String]
        public var actions: [String]
        public var focus: String?
        public var silent: Bool
        public var screenLocked: Bool
        public var trace: [String]
        /// The interface it came in by.
        public var door: String

        enum CodingKeys: String, CodingKey {
            case hints, actions, focus, silent, trace, door
            case appName = "app-name"
            case screenLocked = "screen-locked"
        }

        public init(_ kept: KeptRequest) {
            appName = kept.appName
            hints = kept.hints
            actions = kept.actions
            focus = kept.focus
            silent = kept.silent
            screenLocked = kept.screenLocked
            trace = kept.trace
            door = (kept.door ?? .fdo).interface
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(appName, forKey: .appName)
            try container.encode(hints, forKey: .hints)
            try container.encode(actions, forKey: .actions)
            try container.encode(focus, forKey: .focus)
            try container.encode(silent, forKey: .silent)
            try container.encode(screenLocked, forKey: .screenLocked)
            try container.encode(trace, forKey: .trace)
            try container.encode(door, forKey: .door)
        }
    }

    public var id: UInt32
    public var received: String
    public var app: String
    public var appSource: String?
    /// The browser that sent a web page's notification, whose `app` is the page's site.
    public var via: String?
    public var summary: String
    public var body: String
    public var level: String
    public var decision: String
    public var fate: String
    public var steps: [FateStepReport]
    public var closed: String?
    public var closeReason: UInt32?
    public var then: Then?
    public var now: DecisionReport

    enum CodingKeys: String, CodingKey {
        case id, received, app, via, summary, body, level, decision, fate, steps, closed, then, now
        case appSource = "app-source"
        case closeReason = "close-reason"
    }

    public init(_ entry: HistoryEntry, now: Decision) {
        id = entry.id
        received = Timestamp.string(entry.received)
        app = entry.app
        appSource = entry.kept?.appSource
        via = entry.via
        summary = entry.summary
        body = entry.body
        level = entry.level.rawValue
        decision = entry.decision.rawValue
        fate = entry.fate()
        steps = entry.steps.map(FateStepReport.init)
        closed = entry.closed.map(Timestamp.string)
        closeReason = entry.closeReason
        then = entry.kept.map(Then.init)
        self.now = DecisionReport(now)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(received, forKey: .received)
        try container.encode(app, forKey: .app)
        try container.encode(appSource, forKey: .appSource)
        try container.encode(via, forKey: .via)
        try container.encode(summary, forKey: .summary)
        try container.encode(body, forKey: .body)
        try container.encode(level, forKey: .level)
        try container.encode(decision, forKey: .decision)
        try container.encode(fate, forKey: .fate)
        try container.encode(steps, forKey: .steps)
        try container.encode(closed, forKey: .closed)
        try container.encode(closeReason, forKey: .closeReason)
        try container.encode(then, forKey: .then)
        try container.encode(now, forKey: .now)
    }
}

/// What `Show`, `Dismiss`, `DismissHeld` and `ShowAll` answer: what was done, to which IDs, in
/// one sentence for people.
public struct FateActionReport: Codable, Equatable, Sendable {
    /// `show`, `dismiss`, `show-all` or `snooze`.
    public var action: String
    /// The notifications acted on (empty: nothing was done).
    public var ids: [UInt32]
    /// `show` of a past notification: the ID of the copy shown.
    public var copy: UInt32?
    /// `show-all`: the digest.
    public var digest: UInt32?
    /// `snooze`: when it is shown again (`Timestamp`).
    public var until: String?
    public var message: String

    public init(action: String, ids: [UInt32], copy: UInt32? = nil, digest: UInt32? = nil, until: String? = nil,
                message: String) {
        self.action = action
        self.ids = ids
        self.copy = copy
        self.digest = digest
        self.until = until
        self.message = message
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(action, forKey: .action)
        try container.encode(ids, forKey: .ids)
        try container.encode(copy, forKey: .copy)
        try container.encode(digest, forKey: .digest)
        try container.encode(until, forKey: .until)
        try container.encode(message, forKey: .message)
    }
}

/// `focusctl explain --app … --json`: the decision (`DecisionReport`'s keys, at the top level)
/// and `assumed`, what the request did not say (`Explanation.assumed`).
public struct ExplainAnswer: Encodable, Sendable {
    public var decision: DecisionReport
    public var assumed: [String]

    enum CodingKeys: String, CodingKey { case assumed }

    public init(_ decision: DecisionReport, assumed: [String]) {
        self.decision = decision
        self.assumed = assumed
    }

    public func encode(to encoder: Encoder) throws {
        try decision.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(assumed, forKey: .assumed)
    }
}
