import Foundation

/// `focusctl explain`'s one code path: a request decided in a context, as the daemon decides.
public enum Explanation {
    /// Decides `request` with `context` (its Focus and moment taken from the request when given).
    public static func decide(_ request: ExplainRequest, context: PolicyContext,
                              timeZone: TimeZone) throws(ExplainRequest.Invalid) -> Decision {
        var context = context
        context.now = try request.moment(now: context.now, timeZone: timeZone)
        if let name = request.focus {
            guard let focus = context.settings.focus(named: name) else {
                throw ExplainRequest.Invalid(description: FocusProfile.unknownSentence(name, known: context.settings.profiles))
            }
            context.activeFocus = focus
        }
        let notification = try request.notification()
        let app = AppIdentity(key: request.app, source: .appName)
        return Policy.decide(notification, app: app, context: context)
    }
}
