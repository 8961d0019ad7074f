import FocusBridgeTime

/// One notification as `focusctl history` lists it.
public struct HistoryEntry: Equatable, Sendable {
    public var id: UInt32
    public var app: String
    public var summary: String
    public var body: String
    public var level: InterruptionLevel
    public var decision: DeliveryOutcome
    public var received: Instant
    public var closed: Instant?
    public var closeReason: UInt32?
    /// What became of it after its decision (`Fate`), oldest first.
    public var steps: [FateStep]
    /// What `focusctl explain ID` and `focusctl show ID` need; nil for rows from before it was kept.
    public var kept: KeptRequest?
    /// The browser that sent a web page's notification, whose `app` is the page's site
    /// (`AppIdentity.via`); nil for any other.
    public var via: String?
    /// The door it came in by: `kept`'s, or as the store read it without the rest of `kept`.
    public var door: Door
    /// When an action of its app was first invoked on it (`NotificationOutcome.acted`).
    public var acted: Instant?
    /// A newer row has its ID: its app replaced it (as the store reads it).
    public var replaced: Bool

    public init(id: UInt32, app: String, summary: String, body: String, level: InterruptionLevel,
                decision: DeliveryOutcome, received: Instant, closed: Instant? = nil, closeReason: UInt32? = nil,
                steps: [FateStep] = [], kept: KeptRequest? = nil, via: String? = nil, door: Door? = nil,
                acted: Instant? = nil, replaced: Bool = false) {
        self.id = id
        // Kept as `KeptText` says: history is for finding a notification again, not an archive.
        self.app = KeptText.appKey(app)
        self.via = via.map(KeptText.appKey)
        self.summary = KeptText.summary(summary)
        self.body = KeptText.body(body)
        self.level = level
        self.decision = decision
        self.received = received
        self.closed = closed
        self.closeReason = closeReason
        self.steps = steps
        self.kept = kept
        self.door = door ?? kept?.door ?? .fdo
        self.acted = acted
        self.replaced = replaced
    }

    /// What the person did with it, when it was shown (`NotificationOutcome.of`).
    public var outcome: NotificationOutcome? {
        NotificationOutcome.of(decision: decision, replayed: steps.contains { $0.kind == FateStep.Kind.replayed.rawValue },
                               closeReason: closeReason, acted: acted != nil, replaced: replaced)
    }

    /// Its fate in one line (`held-focus → in digest 12 at 18:02 → dismissed`).
    public func fate(time: (Instant) -> String = Fate.localTime) -> String {
        Fate.line(decision: decision, steps: steps, closeReason: closeReason, closed: closed,
                  own: app == Fate.ownApp, time: time)
    }
}
