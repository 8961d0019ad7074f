/// What the person did with a notification that was shown (focusctl(1), history and report):
/// read from its history row, never stored as a word of its own — the row keeps its close reason
/// (the spec's) and when an action of its app was first invoked, and this is what they mean.
public enum NotificationOutcome: String, CaseIterable, Codable, Sendable {
    /// An action of its app was invoked, the default (a click on it) included, or a reply sent;
    /// the bridge's quick actions and its own notifications' actions are not its app's.
    case acted
    /// Closed by the person (reason 2), a quick action included.
    case dismissed
    /// Expired (reason 1).
    case expired
    /// Its app took it back (`CloseNotification`, or the GTK door's `RemoveNotification`: reason 3).
    case closedByApp = "closed-by-app"
    /// On screen still, or gone without the daemon saying so.
    case open
    /// Its app replaced it with another under the same ID (`replaces_id`, or a duplicate shown in
    /// its place): what became of that one is the newer row's.
    case replaced

    /// The outcome of a history row; nil for one that was never shown as itself (held and never
    /// replayed, in a digest only, dropped, muted, collapsed, from the app in front) and for one
    /// the daemon lost or the bridge gave up (reason 4, or a reason the spec does not name).
    /// - Parameters:
    ///   - replayed: a held one that went out as itself later (`FateStep.Kind.replayed`).
    ///   - acted: an action of its app was invoked on it.
    ///   - replaced: a newer row has its ID.
    public static func of(decision: DeliveryOutcome, replayed: Bool, closeReason: UInt32?, acted: Bool,
                          replaced: Bool) -> NotificationOutcome? {
        guard decision == .delivered || decision == .coalesced || replayed else { return nil }
        if acted { return .acted }
        if replaced { return .replaced }
        guard let closeReason else { return .open }
        switch CloseReason(rawValue: closeReason) {
        case .expired: return .expired
        case .dismissed: return .dismissed
        case .closedByCall: return .closedByApp
        default: return nil
        }
    }
}
