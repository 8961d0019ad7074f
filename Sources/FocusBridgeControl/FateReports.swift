import FocusBridgeCore
import FocusBridgeTime

// The control interface's answers about one notification's fate: explain ID, show, dismiss,
// digest show-all (focusctl(1)). Absent values are written as `null`, never left out.

/// One step of a fate (`Fate`), as `history --json` and `explain ID --json` list them.
public struct FateStepReport: Codable, Equatable, Sendable {
    public var step: String
    public var at: String
    /// The digest (`in-digest`), the copy (`shown-again`) or the original (`copy-of`).
    @Nullable public var number: UInt32?
    @Nullable public var detail: String?

    public init(_ step: FateStep) {
        self.step = step.kind
        at = Timestamp.string(step.at)
        number = step.number
        detail = step.detail
    }

    public var fateStep: FateStep {
        FateStep(kind: step, at: Timestamp.parse(at) ?? Instant(timeIntervalSince1970: 0), number: number, detail: detail)
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
        @Nullable public var focus: String?
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
    }

    public var id: UInt32
    public var received: String
    public var app: String
    @Nullable public var appSource: String?
    /// The browser that sent a web page's notification, whose `app` is the page's site.
    @Nullable public var via: String?
    public var summary: String
    public var body: String
    public var level: String
    public var decision: String
    public var fate: String
    public var steps: [FateStepReport]
    @Nullable public var closed: String?
    @Nullable public var closeReason: UInt32?
    @Nullable public var then: Then?
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
}

/// What `Show`, `Dismiss`, `DismissHeld` and `ShowAll` answer: what was done, to which IDs, in
/// one sentence for people.
public struct FateActionReport: Codable, Equatable, Sendable {
    /// `show`, `dismiss`, `show-all` or `snooze`.
    public var action: String
    /// The notifications acted on (empty: nothing was done).
    public var ids: [UInt32]
    /// `show` of a past notification: the ID of the copy shown.
    @Nullable public var copy: UInt32?
    /// `show-all`: the digest.
    @Nullable public var digest: UInt32?
    /// `snooze`: when it is shown again (`Timestamp`).
    @Nullable public var until: String?
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
