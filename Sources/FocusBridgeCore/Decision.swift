/// The bridge's verdict on one notification, with the trace of rules that led to it, so the
/// daemon and `focusctl explain` tell the same story from the same code.
public struct Decision: Equatable, Sendable {
    public var level: InterruptionLevel
    public var outcome: DeliveryOutcome
    /// One line per rule consulted, in order.
    public var trace: [String]

    public init(level: InterruptionLevel, outcome: DeliveryOutcome, trace: [String]) {
        self.level = level
        self.outcome = outcome
        self.trace = trace
    }
}

/// Decides level and delivery for a notification.
///
/// This milestone forwards everything at the `active` level; the level table, Focus and summary
/// rules arrive here as they are built, each adding its line to the trace.
public struct Policy: Sendable {
    public init() {}

    public func decide(_ notification: NotificationRequest, app: AppIdentity) -> Decision {
        Decision(level: .active, outcome: .delivered, trace: [
            "app: \(app.key) (from \(app.source.rawValue))",
            "level: active (no other rule applies)",
            "delivery: delivered (nothing holds it)",
        ])
    }
}
