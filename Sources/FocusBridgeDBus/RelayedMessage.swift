import CSystemd

/// A message relayed as it came, to another bus (the session relays): its header and its body
/// as one `Variant` tuple with the file descriptors beside it, read once when asked for, and the
/// answer made to carry a body back. A `BusMessage` (the hot path's) is read and written in place,
/// argument by argument; a `RelayedMessage` wraps one and hands it over whole.
public final class RelayedMessage: @unchecked Sendable {
    /// Nil for an answer that could not be made (a reply to a call that expects none).
    let message: BusMessage?
    private var readBody: (body: Variant?, fileDescriptors: [Int32])?

    init(_ message: BusMessage?) { self.message = message }

    public enum Kind: Sendable { case methodCall, methodReturn, error, signal, other }

    public var kind: Kind {
        switch message?.kind ?? .other {
        case .methodCall: return .methodCall
        case .methodReturn: return .methodReturn
        case .error: return .error
        case .signal: return .signal
        case .other: return .other
        }
    }

    public var sender: String? { message?.sender }
    public var destination: String? { message?.destination }
    public var path: String? { message?.path }
    public var interface: String? { message?.interface }
    public var member: String? { message?.member }
    public var errorName: String? { message?.error?.name }

    /// The body as a tuple (nil: a message without one, or one that cannot be read).
    public var body: Variant? { readOnce().body }

    public var expectsReply: Bool { message?.expectsReply ?? false }

    /// The file descriptors travelling with the message (its body's handles index them); they
    /// stay the message's.
    public var fileDescriptors: [Int32] { readOnce().fileDescriptors }

    private func readOnce() -> (body: Variant?, fileDescriptors: [Int32]) {
        if let readBody { return readBody }
        var result: (body: Variant?, fileDescriptors: [Int32]) = (nil, [])
        if let message, !message.signature.isEmpty {
            var fds: [Int32] = []
            if (try? message.rewind()) != nil, let body = try? message.readBody(fileDescriptors: &fds) {
                result = (body, fds)
            }
        }
        readBody = result
        return result
    }

    /// The reply to this call carrying `body` (a tuple) and duplicates of `fileDescriptors`.
    public func answer(body: Variant?, fileDescriptors: [Int32] = []) -> RelayedMessage {
        guard let message, message.expectsReply else { return RelayedMessage(nil) }
        var pointer: OpaquePointer?
        guard sd_bus_message_new_method_return(message.pointer, &pointer) >= 0, let pointer else { return RelayedMessage(nil) }
        let answer = BusMessage(owning: pointer)
        do {
            if let body { try answer.appendBody(body, fileDescriptors: fileDescriptors) }
        } catch {
            return self.answer(error: error)
        }
        return RelayedMessage(answer)
    }

    /// An error reply to this call.
    public func answer(error: DBusError) -> RelayedMessage {
        guard let message, message.expectsReply else { return RelayedMessage(nil) }
        var pointer: OpaquePointer?
        let result = error.name.withCString { name in
            error.message.withCString { text in
                var reply = sd_bus_error(name: name, message: text, _need_free: 0)
                return sd_bus_message_new_method_error(message.pointer, &pointer, &reply)
            }
        }
        guard result >= 0, let pointer else { return RelayedMessage(nil) }
        return RelayedMessage(BusMessage(owning: pointer))
    }
}
