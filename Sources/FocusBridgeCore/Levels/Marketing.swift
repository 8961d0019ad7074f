/// Marketing notifications (focus-bridge.toml(5), MARKETING): the HIG says they "must never break
/// through a Focus or scheduled delivery". One is dropped unless the app is allowed marketing;
/// allowed, it is passive and waits for the scheduled summary (or, without one, for no Focus).
public enum Marketing {
    public static let hint = "x-focus-marketing"
    public static let categoryPrefix = "x-focus.marketing"

    /// Whether the app marked the notification as marketing (the hint true, or the category).
    public static func isMarketing(_ notification: NotificationRequest) -> Bool {
        if case .bool(true) = notification.hints[hint] { return true }
        if notification.hints[hint]?.integer.map({ $0 != 0 }) == true { return true }
        return LevelResolver.category(of: notification)?.hasPrefix(categoryPrefix) == true
    }
}
