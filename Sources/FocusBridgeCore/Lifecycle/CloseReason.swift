/// The reason of `NotificationClosed` (Desktop Notifications spec 1.2). A struct rather than an
/// enum: a daemon may send a reason the spec does not name, and it is passed on as it came.
public struct CloseReason: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The notification expired.
    public static let expired = CloseReason(rawValue: 1)
    /// Dismissed by the person — also what the bridge says when the person's own settings end a
    /// notification (`delivery = "off"`, a digest's Dismiss, `after-focus = "none"`).
    public static let dismissed = CloseReason(rawValue: 2)
    /// Closed by a call to `CloseNotification`.
    public static let closedByCall = CloseReason(rawValue: 3)
    /// Undefined: the daemon went away, or the bridge had to give the notification up.
    public static let undefined = CloseReason(rawValue: 4)
}
