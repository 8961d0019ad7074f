/// What the bridge did with a notification, as recorded in history.
public enum DeliveryOutcome: String, CaseIterable, Codable, Sendable {
    case delivered
    case heldFocus = "held-focus"
    case heldSummary = "held-summary"
    case coalesced
    /// Over the app's rate limit: counted in its "N more from App" notification instead.
    case collapsed
    case dropped
    /// The app is muted (`focusctl mute`): recorded, never shown, its ID ended at once.
    case muted
    /// From the app in front (`when-focused = "hide"`): the person is looking at it already.
    case foreground
}
