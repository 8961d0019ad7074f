import CGLib

/// An incoming method call on an object FocusBridge exports; answer it exactly once.
///
/// Owns the `GDBusMethodInvocation`; one that is dropped unanswered replies with an error, so a
/// client never waits for a reply that cannot come.
public final class MethodCall {
    private var invocation: OpaquePointer?
    public let sender: String
    public let objectPath: String
    public let interfaceName: String
    public let methodName: String
    public let parameters: Variant

    init(invocation: OpaquePointer, sender: String, objectPath: String, interfaceName: String,
         methodName: String, parameters: Variant) {
        self.invocation = invocation
        self.sender = sender
        self.objectPath = objectPath
        self.interfaceName = interfaceName
        self.methodName = methodName
        self.parameters = parameters
    }

    public var isAnswered: Bool { invocation == nil }

    /// Replies with the given out-arguments (a tuple), or with nothing.
    public func reply(_ value: Variant? = nil) {
        guard let invocation else { return }
        self.invocation = nil
        g_dbus_method_invocation_return_value(invocation, value?.pointer)
    }

    public func fail(_ error: DBusError) {
        guard let invocation else { return }
        self.invocation = nil
        g_dbus_method_invocation_return_dbus_error(invocation, error.name, error.message)
    }

    deinit {
        fail(DBusError(name: DBusError.failed, message: "the call was dropped without an answer"))
    }
}
