import Foundation

/// One notification as `focusctl history` lists it.
public struct HistoryEntry: Equatable, Sendable {
    /// Text kept in history is cut at this many characters: history is for finding a
    /// notification again, not for archiving megabyte bodies.
    public static let maxTextLength = 1000

    public var id: UInt32
    public var app: String
    public var summary: String
    public var body: String
    public var level: InterruptionLevel
    public var decision: DeliveryOutcome
    public var received: Date
    public var closed: Date?
    public var closeReason: UInt32?

    public init(id: UInt32, app: String, summary: String, body: String, level: InterruptionLevel,
                decision: DeliveryOutcome, received: Date, closed: Date? = nil, closeReason: UInt32? = nil) {
        self.id = id
        self.app = app
        self.summary = String(summary.prefix(Self.maxTextLength))
        self.body = String(body.prefix(Self.maxTextLength))
        self.level = level
        self.decision = decision
        self.received = received
        self.closed = closed
        self.closeReason = closeReason
    }
}
