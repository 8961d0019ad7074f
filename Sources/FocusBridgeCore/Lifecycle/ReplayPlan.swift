/// What becomes of a held notification when it goes out (a Focus's end with `after-focus =
/// "replay"`, Show All, `focusctl show`, a snooze's end), decided without I/O: shown as itself,
/// or — a snooze that ended — held again for the Focus on now or the summary when they would
/// hold a new notification.
public enum ReplayPlan: Equatable, Sendable {
    /// Out as itself, shown as `shown`; `counts`: toward its app's rate limit; `step`: its fate.
    case shown(Shown, counts: Bool, step: FateStep)
    /// A snooze that ended, held again for this.
    case heldAgain(HeldNotification.Reason)
    /// Its stored arguments cannot be read: it ends.
    case unreadable

    /// - Parameters:
    ///   - cause: what asked for the replay (nil: a snooze's end).
    ///   - focusName: the Focus on now.
    public static func plan(_ item: HeldNotification, request: NotificationRequest, cause: String?,
                            context: PolicyContext, focusName: String?) -> ReplayPlan {
        let app = AppIdentity.held(key: item.app, request: request, sandbox: item.holders.lazy.compactMap(\.sandbox).first)
        let counts = Policy.replayCounts(request, app: app, context: context)
        guard cause == nil, item.reason.snoozedUntil != nil else {
            return .shown(Policy.present(request, app: app, context: context), counts: counts,
                          step: FateStep(.replayed, at: context.now, detail: cause))
        }
        // A snooze that ended is decided as a new notification would be.
        let decision = Policy.decide(request, app: app, context: context)
        switch decision.outcome {
        case .heldFocus: if let focusName { return .heldAgain(.focus(focusName)) }
        case .heldSummary: return .heldAgain(.summary)
        default: break
        }
        return .shown(decision.shown, counts: counts, step: FateStep(.unsnoozed, at: context.now))
    }
}
