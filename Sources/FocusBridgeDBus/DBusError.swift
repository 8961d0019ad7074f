import CGLib

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

    /// Takes over (and frees) a GError from a GIO call.
    init(taking error: UnsafeMutablePointer<GError>?) {
        guard let error else {
            self.init(name: "org.freedesktop.DBus.Error.Failed", message: "unknown error")
            return
        }
        defer { g_error_free(error) }
        let remote = g_dbus_error_get_remote_error(error)
        defer { g_free(remote) }
        let isRemote = g_dbus_error_is_remote_error(error) != 0
        if isRemote { g_dbus_error_strip_remote_error(error) }
        let name = remote.map { String(cString: $0) }
            ?? DBusError.name(forDomain: error.pointee.domain, code: error.pointee.code)
        self.init(name: name, message: String(cString: error.pointee.message), isRemote: isRemote)
    }

    /// The well-known D-Bus error name for a local GIO error, so callers can match on names only.
    private static func name(forDomain domain: GQuark, code: Int32) -> String {
        if domain == g_io_error_quark() {
            switch code {
            case Int32(G_IO_ERROR_TIMED_OUT.rawValue): return "org.freedesktop.DBus.Error.NoReply"
            case Int32(G_IO_ERROR_CLOSED.rawValue): return "org.freedesktop.DBus.Error.Disconnected"
            case Int32(G_IO_ERROR_CANCELLED.rawValue): return "org.gtk.GDBus.Error.Cancelled"
            default: return "org.gtk.GDBus.UnmappedGError.Quark._g_2dio_2derror_2dquark.Code\(code)"
            }
        }
        return "org.freedesktop.DBus.Error.Failed"
    }

    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    public static let noReply = "org.freedesktop.DBus.Error.NoReply"
    public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
    public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let failed = "org.freedesktop.DBus.Error.Failed"

    public var description: String { "\(name): \(message)" }
}
