/// What the bridge did with a notification, as recorded in history.
public enum DeliveryOutcome: String, CaseIterable, Codable, Sendable {
    case delivered
    case heldFocus = "held-focus"
    case heldSummary = "held-summary"
    case coalesced
    case dropped
}
