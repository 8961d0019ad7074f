/// A D-Bus error: a name such as `org.freedesktop.DBus.Error.ServiceUnknown` and a message.
public struct DBusError: Error, CustomStringConvertible, Sendable {
    public let name: String
    public let message: String
    /// Sent by the other end or the bus (not made up here, as a local time-out is).
    public let isRemote: Bool

    public init(name: String, message: String, isRemote: Bool = false) {
        self.name = name
        self.message = message
        self.isRemote = isRemote
    }

    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    public static let noReply = "org.freedesktop.DBus.Error.NoReply"
    public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
    public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let failed = "org.freedesktop.DBus.Error.Failed"
    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"

    public var description: String { "\(name): \(message)" }
}
