/// The bridge's own notifications — digests, questions, the review, "N more from App", a copy
/// shown again from history — decided here, beside `Intake` (an app's) and `ReplayPlan` (a held
/// one's), so that every decision of what is shown comes from the lifecycle's core.
public enum OwnNotification {
    /// The app key they go by (history, the ledger's own holder, the Focus's rules).
    public static let appName = "FocusBridge"

    public enum Kind: Sendable {
        /// A digest, the Time Sensitive question or the review: active, with actions.
        case asking
        /// An app's "N more from App": passive, and it speaks of the app by its key.
        case moreFrom
        /// A notification shown again from history: at its own level, as its app's.
        case copy
    }

    /// How it is shown: as `Policy.present` says for the level of its kind, without the delivery
    /// rules and without a Focus's previews.
    public static func shown(_ kind: Kind, _ request: NotificationRequest, app: AppIdentity,
                             context: PolicyContext) -> Shown {
        switch kind {
        case .asking: return Policy.present(request, app: app, level: .active, context: context)
        case .moreFrom:
            var request = request
            request.appName = app.key
            return Policy.present(request, app: app, level: .passive, context: context)
        case .copy: return Policy.present(request, app: app, context: context)
        }
    }

    /// Whether `focus` (the one on) holds the bridge's own asking notifications: they wait for it
    /// to end, or for the summary.
    public static func held(by focus: FocusProfile?) -> Bool {
        guard let focus else { return false }
        return Policy.breakThrough(focus: focus, app: AppIdentity(key: appName, source: .appName), level: .active,
                                   communication: nil) == nil
    }
}
