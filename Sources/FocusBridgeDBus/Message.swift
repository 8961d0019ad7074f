import CGLib

/// A raw D-Bus message, for passing calls through to another bus untouched.
public final class Message: @unchecked Sendable {
    let pointer: OpaquePointer // GDBusMessage*, one reference owned

    init(owning pointer: OpaquePointer) { self.pointer = pointer }
    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    public enum Kind: Sendable { case methodCall, methodReturn, error, signal, other }

    public var kind: Kind {
        switch g_dbus_message_get_message_type(pointer) {
        case G_DBUS_MESSAGE_TYPE_METHOD_CALL: return .methodCall
        case G_DBUS_MESSAGE_TYPE_METHOD_RETURN: return .methodReturn
        case G_DBUS_MESSAGE_TYPE_ERROR: return .error
        case G_DBUS_MESSAGE_TYPE_SIGNAL: return .signal
        default: return .other
        }
    }

    public var sender: String? { g_dbus_message_get_sender(pointer).map { String(cString: $0) } }
    public var destination: String? { g_dbus_message_get_destination(pointer).map { String(cString: $0) } }
    public var path: String? { g_dbus_message_get_path(pointer).map { String(cString: $0) } }
    public var interface: String? { g_dbus_message_get_interface(pointer).map { String(cString: $0) } }
    public var member: String? { g_dbus_message_get_member(pointer).map { String(cString: $0) } }
    public var errorName: String? { g_dbus_message_get_error_name(pointer).map { String(cString: $0) } }
    public var body: Variant? { g_dbus_message_get_body(pointer).map { Variant(borrowing: $0) } }

    public var expectsReply: Bool {
        (g_dbus_message_get_flags(pointer).rawValue & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED.rawValue) == 0
    }

    /// A copy of this method call addressed to `destination` (sender and serial left to the bus).
    public func forwardedCall(to destination: String) -> Message {
        let call = g_dbus_message_new_method_call(destination, path, interface, member)!
        if let body { withExtendedLifetime(body) { g_dbus_message_set_body(call, body.pointer) } }
        copyFileDescriptors(from: pointer, to: call)
        return Message(owning: call)
    }

    /// The reply to this call carrying `reply`'s body, or its error.
    public func answer(copying reply: Message) -> Message {
        if reply.kind == .error {
            let text = reply.body.flatMap { $0.childCount > 0 ? $0.child(0).string : nil } ?? ""
            return Message(owning: g_dbus_message_new_method_error_literal(
                pointer, reply.errorName ?? DBusError.failed, text))
        }
        let answer = g_dbus_message_new_method_reply(pointer)!
        if let body = reply.body { withExtendedLifetime(body) { g_dbus_message_set_body(answer, body.pointer) } }
        copyFileDescriptors(from: reply.pointer, to: answer)
        return Message(owning: answer)
    }

    /// The file descriptors travelling with the message (its body's handles index them); they
    /// stay the message's.
    public var fileDescriptors: [Int32] {
        guard let list = g_dbus_message_get_unix_fd_list(pointer) else { return [] }
        var count: Int32 = 0
        guard let fds = g_unix_fd_list_peek_fds(list, &count) else { return [] }
        return Array(UnsafeBufferPointer(start: fds, count: Int(count)))
    }

    /// The reply to this call carrying `body` (a tuple) and duplicates of `fileDescriptors`, for
    /// an answer that came over sd-bus.
    public func answer(body: Variant?, fileDescriptors: [Int32] = []) -> Message {
        let answer = g_dbus_message_new_method_reply(pointer)!
        if let body { withExtendedLifetime(body) { g_dbus_message_set_body(answer, body.pointer) } }
        if !fileDescriptors.isEmpty {
            let list = g_unix_fd_list_new()
            for fd in fileDescriptors { _ = g_unix_fd_list_append(list, fd, nil) }
            g_dbus_message_set_unix_fd_list(answer, list)
            g_object_unref(UnsafeMutableRawPointer(list))
        }
        return Message(owning: answer)
    }

    /// An error reply to this call.
    public func answer(error: DBusError) -> Message {
        Message(owning: g_dbus_message_new_method_error_literal(pointer, error.name, error.message))
    }
}

/// File descriptors travel beside the body (arguments of type `h` index them): a copied body
/// needs them too. The list is shared, not duplicated: GDBus sends what it holds.
private func copyFileDescriptors(from source: OpaquePointer, to target: OpaquePointer) {
    guard let list = g_dbus_message_get_unix_fd_list(source) else { return }
    g_dbus_message_set_unix_fd_list(target, list)
}
