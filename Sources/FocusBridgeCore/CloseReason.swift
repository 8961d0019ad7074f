/// The reasons of `NotificationClosed` (Desktop Notifications spec 1.2).
public enum CloseReason {
    /// The notification expired.
    public static let expired: UInt32 = 1
    /// Dismissed by the person — also what the bridge says when the person's own settings end a
    /// notification (`delivery = "off"`, a digest's Dismiss, `after-focus = "none"`).
    public static let dismissed: UInt32 = 2
    /// Closed by a call to `CloseNotification`.
    public static let closedByCall: UInt32 = 3
    /// Undefined: the daemon went away, or the bridge had to give the notification up.
    public static let undefined: UInt32 = 4
}
