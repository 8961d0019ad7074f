import FocusBridgeTime

/// A notification held back (for a Focus or the scheduled summary), as the store keeps it: the
/// facts the bridge needs to list, order and replay it. The full original `Notify` arguments are
/// kept beside it as bytes by the store, so a replay is faithful.
public struct HeldNotification: Equatable, Sendable {
    public enum Reason: Hashable, Sendable {
        case focus(String)
        case summary
        /// Snoozed by the person (`focusctl snooze`, the `snooze-hour` quick action): off the
        /// screen, its app not told, shown again as itself at `until`.
        case snooze(until: Instant)

        /// What history's decision calls it while it waits; nil for a snoozed one (it was shown,
        /// and counts toward neither the Focus nor the summary).
        public var outcome: DeliveryOutcome? {
            switch self {
            case .focus: .heldFocus
            case .summary: .heldSummary
            case .snooze: nil
            }
        }

        /// When a snoozed one is due; nil for what a Focus or the summary holds.
        public var snoozedUntil: Instant? { if case .snooze(let until) = self { until } else { nil } }
    }

    /// The most a held notification's original arguments may weigh (the store keeps them byte for
    /// byte for a faithful replay): a heavier one is delivered at once instead of held, so no
    /// single notification can put megabytes on disk, and none is lost.
    public static let maxPayloadBytes = 1 << 20

    /// Whether a notification whose `Notify` arguments weigh `bytes` may be held.
    public static func mayHold(payloadBytes bytes: Int) -> Bool { bytes <= maxPayloadBytes }

    public var id: UInt32
    public var reason: Reason
    public var app: String
    public var summary: String
    public var body: String
    public var level: InterruptionLevel
    /// `x-focus-relevance`, 0…1 (default 0).
    public var relevance: Double
    public var received: Instant
    /// The connections that hold its ID (it sent it or replaced it), oldest first: its signals
    /// and its one `NotificationClosed` go to each.
    public var holders: [Caller]
    /// The process that sent it (for `sender-pid` on replay), when known.
    public var processID: UInt32?

    public init(id: UInt32, reason: Reason, app: String, summary: String, body: String, level: InterruptionLevel,
                relevance: Double, received: Instant, holders: [Caller], processID: UInt32?) {
        self.id = id
        self.reason = reason
        // What the digests and `focusctl summary` show is cut; the payload replayed is the original.
        self.app = KeptText.appKey(app)
        self.summary = KeptText.summary(summary)
        self.body = KeptText.body(body)
        self.level = level
        self.relevance = relevance
        self.received = received
        self.holders = holders
        self.processID = processID
    }

    /// The relevance hint of a notification, clamped to 0…1; NaN counts as 0 (SQLite would store
    /// it as NULL, `held.relevance` is NOT NULL, and the whole batch's commit would fail; the fuzz
    /// reproducer Fuzz/crashes/notify-text/crash-nan-relevance).
    public static func relevance(of notification: NotificationRequest) -> Double {
        guard case .double(let value) = notification.hints["x-focus-relevance"], !value.isNaN else { return 0 }
        return min(max(value, 0), 1)
    }
}
