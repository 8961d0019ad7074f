import FocusBridgeCore
import FocusBridgeTime

/// `focusctl explain`'s one code path: a request decided in a context, as the daemon decides.
public enum Explanation {
    /// Decides `request` with `context` (its Focus and moment taken from the request when given).
    public static func decide(_ request: ExplainRequest, context: PolicyContext,
                              timeZone: TimeZoneRules) throws(ExplainRequest.Invalid) -> Decision {
        var context = context
        context.now = try request.moment(now: context.now, timeZone: timeZone)
        if let name = request.focus {
            guard let focus = context.settings.focus(named: name) else {
                throw ExplainRequest.Invalid(description: FocusProfile.unknownSentence(name, known: context.settings.profiles))
            }
            context.activeFocus = focus
        }
        let notification = try request.notification()
        // Named as the daemon names an unsandboxed sender: its desktop-entry hint, else its app name.
        let app = AppIdentity.resolve(notification, process: nil)
        return Policy.decide(notification, app: app, context: context)
    }
}

extension Explanation {
    /// Decides a notification from history again, as the daemon decides one arriving now
    /// (`Intake.take` runs the same `Policy.decide`): `focusctl explain ID`'s "now".
    public static func decide(_ notification: NotificationRequest, app: AppIdentity, context: PolicyContext) -> Decision {
        Policy.decide(notification, app: app, context: context)
    }

    /// What `focusctl explain` assumed for what the request does not say, one line each (an
    /// empty list when it says everything); `focusOn`: the Focus the daemon has on, if known.
    public static func assumed(_ request: ExplainRequest) -> [String] {
        var lines: [String] = []
        let hintNames = Set(request.hints.compactMap { $0.split(separator: ":", maxSplits: 2).dropFirst().first.map(String.init) })
        if request.urgency == nil && !hintNames.contains("urgency") {
            lines.append("urgency: normal (no --urgency)")
        }
        if request.category == nil && !hintNames.contains("category") {
            lines.append("category: none (no --category)")
        }
        if request.summary.isEmpty && request.body.isEmpty {
            lines.append("summary and body: empty (no --summary, --body: no person is recognised, no duplicate found)")
        }
        if request.actions.isEmpty { lines.append("actions: none (no --action)") }
        if request.focus == nil { lines.append("Focus: the one on now, if any (no --focus)") }
        if request.at == nil { lines.append("time: now (no --at)") }
        return lines
    }
}
