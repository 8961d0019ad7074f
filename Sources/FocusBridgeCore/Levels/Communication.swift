/// Communication notifications (messages, calls) and the person they come from: a Focus may
/// let chosen people through.
public struct Communication: Equatable, Sendable {
    public static let senderHint = "x-focus-sender"

    public var person: String
    /// Category `call` or `call.*`: a repeated one may break through a Focus (`RecentCalls`).
    public var isCall: Bool

    public init(person: String, isCall: Bool = false) {
        self.person = person
        self.isCall = isCall
    }

    /// Category `im`, `im.*`, `call`, `call.*`, or an app with `communication = true`; the person
    /// is the hint `x-focus-sender`, else the summary.
    public static func detect(_ notification: NotificationRequest, rule: AppRule) -> Communication? {
        let category = LevelResolver.category(of: notification) ?? ""
        let isCommunication = rule.communication || category == "im" || category.hasPrefix("im.")
            || category == "call" || category.hasPrefix("call.")
        guard isCommunication else { return nil }
        let sender = notification.hints[senderHint]?.string.flatMap { $0.isEmpty ? nil : $0 }
        return Communication(person: sender ?? notification.summary,
                             isCall: category == "call" || category.hasPrefix("call."))
    }
}
