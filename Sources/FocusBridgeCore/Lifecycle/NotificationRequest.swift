/// A notification as an application sent it, decoded for deciding: `Notify`'s arguments, or a
/// GTK `AddNotification` put in their terms by its door (`door`).
public struct NotificationRequest: Sendable {
    /// The door it came in by.
    public var door: Door = .fdo
    public var appName: String
    public var replacesID: UInt32
    public var appIcon: String
    public var summary: String
    public var body: String
    /// The raw `actions` array, pairs of key and label as sent.
    public var actions: [String]
    public var hints: [String: HintValue]
    public var expireTimeout: Int32

    public init(appName: String = "", replacesID: UInt32 = 0, appIcon: String = "", summary: String = "",
                body: String = "", actions: [String] = [], hints: [String: HintValue] = [:],
                expireTimeout: Int32 = -1) {
        self.appName = appName
        self.replacesID = replacesID
        self.appIcon = appIcon
        self.summary = summary
        self.body = body
        self.actions = actions
        self.hints = hints
        self.expireTimeout = expireTimeout
    }

    /// The `desktop-entry` hint when it is a non-empty string.
    public var desktopEntry: String? {
        guard let entry = hints["desktop-entry"]?.string, !entry.isEmpty else { return nil }
        return entry
    }

    /// The action pairs in the client's order (see `ActionPair.pairs(from:)`).
    public var actionPairs: [ActionPair] { ActionPair.pairs(from: actions) }
}
