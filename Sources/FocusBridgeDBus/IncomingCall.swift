import CSystemd

/// A method call that arrived on a `MessageConnection`, to be answered exactly once.
///
/// One that is dropped unanswered replies with an error (so does a `VariantCall`, through it), so
/// a client never waits for a reply that cannot come. Its arguments are read from `message`.
public final class IncomingCall {
    public let message: BusMessage
    private var isAnswered = false

    public init(_ message: BusMessage) { self.message = message }

    public var sender: String { message.sender ?? "" }
    public var member: String { message.member ?? "" }

    /// Replies with the out-arguments `build` appends (none when it appends nothing). A reply
    /// that cannot be built becomes an error reply.
    public func reply(_ build: (BusMessage) throws(DBusError) -> Void = { _ in }) {
        guard !isAnswered else { return }
        isAnswered = true
        guard message.expectsReply else { return }
        var pointer: OpaquePointer?
        guard sd_bus_message_new_method_return(message.pointer, &pointer) >= 0, let pointer else { return }
        let reply = BusMessage(owning: pointer)
        do {
            try build(reply)
            _ = sd_bus_send(nil, reply.pointer, nil)
        } catch {
            isAnswered = false
            fail(error)
        }
    }

    /// Replies with one `u` (a `Notify`'s ID): the reply is built and sent here, without a
    /// `BusMessage` made around it.
    public func reply(_ value: UInt32) {
        guard !isAnswered else { return }
        isAnswered = true
        guard message.expectsReply else { return }
        do { try message.sendReply(value) } catch {
            isAnswered = false
            fail(error)
        }
    }

    /// Replies with `error`.
    public func fail(_ error: DBusError) {
        guard !isAnswered else { return }
        isAnswered = true
        guard message.expectsReply else { return }
        error.name.withCString { name in
            error.message.withCString { text in
                var reply = sd_bus_error(name: name, message: text, _need_free: 0)
                _ = sd_bus_reply_method_error(message.pointer, &reply)
            }
        }
    }

    /// Replies with `reply`'s body, or its error (a call passed through and its answer).
    public func answer(copying reply: BusMessage) {
        if let error = reply.error { return fail(error) }
        self.reply { answer throws(DBusError) in
            try reply.rewind()
            try answer.appendRest(copying: reply)
        }
    }

    deinit {
        fail(DBusError(name: DBusError.failed, message: "the call was dropped without an answer"))
    }
}
