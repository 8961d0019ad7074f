/// A method call on an object FocusBridge exports (`VariantConnection.export`), checked against
/// the interface's XML, with its arguments read into one `Variant` tuple (`parameters`) and its
/// reply given as one: the cold paths' call. The hot path's, `IncomingCall`, reads and writes its
/// `BusMessage` in place; a `VariantCall` wraps one. Answer it exactly once.
///
/// One that is dropped unanswered replies with an error (its `IncomingCall` does), so a client
/// never waits for a reply that cannot come.
public final class VariantCall {
    private let call: IncomingCall
    public let sender: String
    public let objectPath: String
    public let interfaceName: String
    public let methodName: String
    /// The arguments, as one tuple.
    public let parameters: Variant

    init(_ call: IncomingCall, objectPath: String, interfaceName: String, methodName: String, parameters: Variant) {
        self.call = call
        sender = call.sender
        self.objectPath = objectPath
        self.interfaceName = interfaceName
        self.methodName = methodName
        self.parameters = parameters
    }

    public private(set) var isAnswered = false

    /// Replies with the given out-arguments (a tuple), or with nothing.
    public func reply(_ value: Variant? = nil) {
        guard !isAnswered else { return }
        isAnswered = true
        call.reply { message throws(DBusError) in
            if let value { try message.appendBody(value) }
        }
    }

    public func fail(_ error: DBusError) {
        guard !isAnswered else { return }
        isAnswered = true
        call.fail(error)
    }
}
