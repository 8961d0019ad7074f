import CGLib

/// A signal received on a connection.
public struct Signal {
    public init(sender: String, path: String, interface: String, member: String, parameters: Variant) {
        self.sender = sender; self.path = path; self.interface = interface; self.member = member; self.parameters = parameters
    }
    public let sender: String
    public let path: String
    public let interface: String
    public let member: String
    public let parameters: Variant
}

/// A connection to a message bus: typed calls, signals, names and exported objects over GDBus.
public final class BusConnection {
    public private(set) var pointer: OpaquePointer // GDBusConnection*, one reference owned

    private init(owning pointer: OpaquePointer) { self.pointer = pointer }
    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// Connects to `address` again, in place of this (closed) connection, so that everything
    /// holding this object uses the new one. Signal subscriptions, exported objects, filters and
    /// close handlers stay with the old connection: set up again what is needed.
    public func reconnect(address: String) throws(DBusError) {
        let fresh = try BusConnection.connect(address: address)
        g_object_ref(UnsafeMutableRawPointer(fresh.pointer))
        g_object_unref(UnsafeMutableRawPointer(pointer))
        pointer = fresh.pointer
    }

    /// Connects to the bus at `address` (a message bus: Hello is sent, a unique name assigned).
    public static func connect(address: String) throws(DBusError) -> BusConnection {
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
            | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw DBusError(taking: error)
        }
        g_dbus_connection_set_exit_on_close(connection, 0)
        return BusConnection(owning: connection)
    }

    /// The session bus of `DBUS_SESSION_BUS_ADDRESS`, as a private connection of our own.
    public static func session() throws(DBusError) -> BusConnection {
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            throw DBusError(taking: error)
        }
        defer { g_free(address) }
        return try connect(address: String(cString: address))
    }

    /// The system bus, when there is one.
    public static func system() throws(DBusError) -> BusConnection {
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, nil, &error) else {
            throw DBusError(taking: error)
        }
        defer { g_free(address) }
        return try connect(address: String(cString: address))
    }

    public var uniqueName: String {
        g_dbus_connection_get_unique_name(pointer).map { String(cString: $0) } ?? ""
    }

    public var isClosed: Bool { g_dbus_connection_is_closed(pointer) != 0 }

    // MARK: Calls

    /// Calls a method asynchronously; `completion` runs on the main loop with the reply tuple.
    public func call(_ destination: String, _ path: String, _ interface: String, _ method: String,
                     _ arguments: Variant? = nil, replyType: String? = nil, timeoutMilliseconds: Int32 = -1,
                     completion: @escaping (Result<Variant, DBusError>) -> Void) {
        typealias Completion = (Result<Variant, DBusError>) -> Void
        let type = replyType.map { g_variant_type_new($0) }
        defer { type.map { g_variant_type_free($0) } }
        g_dbus_connection_call(pointer, destination, path, interface, method, arguments?.pointer, type ?? nil,
                               G_DBUS_CALL_FLAGS_NO_AUTO_START, timeoutMilliseconds, nil, { source, result, data in
            let completion = CallbackBox<Completion>.take(data)
            var error: UnsafeMutablePointer<GError>?
            let connection = OpaquePointer(source)
            if let reply = g_dbus_connection_call_finish(connection, result, &error) {
                completion(.success(Variant(owning: reply)))
            } else {
                completion(.failure(DBusError(taking: error)))
            }
        }, CallbackBox<Completion>(completion).retainedPointer())
    }

    /// Calls a method and waits for the reply (start-up and command-line tools only).
    public func callSync(_ destination: String, _ path: String, _ interface: String, _ method: String,
                         _ arguments: Variant? = nil, replyType: String? = nil,
                         timeoutMilliseconds: Int32 = -1) throws(DBusError) -> Variant {
        var error: UnsafeMutablePointer<GError>?
        let type = replyType.map { g_variant_type_new($0) }
        defer { type.map { g_variant_type_free($0) } }
        guard let reply = g_dbus_connection_call_sync(pointer, destination, path, interface, method,
                                                      arguments?.pointer, type ?? nil,
                                                      G_DBUS_CALL_FLAGS_NO_AUTO_START, timeoutMilliseconds,
                                                      nil, &error) else {
            throw DBusError(taking: error)
        }
        return Variant(owning: reply)
    }

    /// Sends a raw message and hands its reply (or error) to `completion` on the main loop.
    public func send(_ message: Message, timeoutMilliseconds: Int32 = -1,
                     completion: @escaping (Result<Message, DBusError>) -> Void) {
        typealias Completion = (Result<Message, DBusError>) -> Void
        g_dbus_connection_send_message_with_reply(pointer, message.pointer, G_DBUS_SEND_MESSAGE_FLAGS_NONE,
                                                  timeoutMilliseconds, nil, nil, { source, result, data in
            let completion = CallbackBox<Completion>.take(data)
            var error: UnsafeMutablePointer<GError>?
            if let reply = g_dbus_connection_send_message_with_reply_finish(OpaquePointer(source), result, &error) {
                completion(.success(Message(owning: reply)))
            } else {
                completion(.failure(DBusError(taking: error)))
            }
        }, CallbackBox<Completion>(completion).retainedPointer())
    }

    /// Sends a raw message that expects no reply (a reply, a signal).
    public func send(_ message: Message) {
        g_dbus_connection_send_message(pointer, message.pointer, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, nil)
    }

    /// Emits a signal; with a `destination` it is unicast to that connection only.
    public func emitSignal(destination: String?, path: String, interface: String, name: String,
                           _ arguments: Variant) {
        g_dbus_connection_emit_signal(pointer, destination, path, interface, name, arguments.pointer, nil)
    }

    // MARK: Signals

    /// Subscribes to signals; nil fields match anything. Returns an ID for `unsubscribe`.
    @discardableResult
    public func subscribe(sender: String? = nil, interface: String? = nil, member: String? = nil,
                          path: String? = nil, arg0: String? = nil,
                          _ handler: @escaping (Signal) -> Void) -> UInt32 {
        typealias Handler = (Signal) -> Void
        return g_dbus_connection_signal_subscribe(pointer, sender, interface, member, path, arg0,
                                                  G_DBUS_SIGNAL_FLAGS_NONE, { _, sender, path, interface, member, parameters, data in
            CallbackBox<Handler>.borrow(data)(Signal(
                sender: sender.map { String(cString: $0) } ?? "",
                path: String(cString: path!), interface: String(cString: interface!),
                member: String(cString: member!), parameters: Variant(borrowing: parameters!)))
        }, CallbackBox<Handler>(handler).retainedPointer(), { data in CallbackBox<Handler>.release(data) })
    }

    public func unsubscribe(_ id: UInt32) { g_dbus_connection_signal_unsubscribe(pointer, id) }

    /// Calls `handler` once when the connection closes (the bus went away).
    public func onClose(_ handler: @escaping () -> Void) {
        typealias Handler = () -> Void
        let callback: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<GError>?, UnsafeMutableRawPointer?) -> Void = { _, _, _, data in
            CallbackBox<Handler>.borrow(data)()
        }
        g_signal_connect_data(UnsafeMutableRawPointer(pointer), "closed",
                              unsafeBitCast(callback, to: GCallback.self),
                              CallbackBox<Handler>(handler).retainedPointer(),
                              { data, _ in CallbackBox<Handler>.release(data) }, GConnectFlags(rawValue: 0))
    }

    // MARK: Names

    public enum NameRequestResult: Sendable { case primaryOwner, inQueue, exists, alreadyOwner }

    /// Asks the bus for a well-known name (RequestName); flags as in the D-Bus specification.
    public func requestName(_ name: String, allowReplacement: Bool = false, replaceExisting: Bool = false,
                            doNotQueue: Bool = true) throws(DBusError) -> NameRequestResult {
        let flags: UInt32 = (allowReplacement ? 1 : 0) | (replaceExisting ? 2 : 0) | (doNotQueue ? 4 : 0)
        let reply = try callSync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                 "RequestName", .tuple([.string(name), .uint32(flags)]), replyType: "(u)")
        switch reply.child(0).uint32 {
        case 1: return .primaryOwner
        case 2: return .inQueue
        case 4: return .alreadyOwner
        default: return .exists
        }
    }

    /// The unique name owning `name`, or nil.
    public func nameOwner(_ name: String) -> String? {
        try? callSync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                      .tuple([.string(name)]), replyType: "(s)").child(0).string
    }

    /// The process ID behind a connection name, or nil.
    public func processID(of name: String) -> UInt32? {
        try? callSync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                      "GetConnectionUnixProcessID", .tuple([.string(name)]), replyType: "(u)").child(0).uint32
    }

    /// The same, asynchronously.
    public func processID(of name: String, completion: @escaping (UInt32?) -> Void) {
        call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
             .tuple([.string(name)]), replyType: "(u)") { result in
            completion(try? result.get().child(0).uint32)
        }
    }

    /// Watches who owns `name`: `changed` gets the new unique owner, or nil when it has none.
    /// The current owner is reported once at the start.
    public func watchName(_ name: String, _ changed: @escaping (String?) -> Void) {
        subscribe(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged",
                  path: "/org/freedesktop/DBus", arg0: name) { signal in
            let owner = signal.parameters.child(2).string ?? ""
            changed(owner.isEmpty ? nil : owner)
        }
        call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
             .tuple([.string(name)]), replyType: "(s)") { result in
            if case .success(let reply) = result { changed(reply.child(0).string) } else { changed(nil) }
        }
    }

    // MARK: Exporting objects

    /// Exports the interface described by `xml` (one `<node>` holding it) at `path`;
    /// `handler` receives every method call on it.
    public func export(path: String, interfaceXML xml: String, interface: String,
                       _ handler: @escaping (MethodCall) -> Void) throws(DBusError) {
        typealias Handler = (MethodCall) -> Void
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(xml, &error) else { throw DBusError(taking: error) }
        defer { g_dbus_node_info_unref(node) }
        guard let info = g_dbus_node_info_lookup_interface(node, interface) else {
            throw DBusError(name: DBusError.failed, message: "interface \(interface) missing from its XML")
        }
        // GDBus copies the vtable (`_g_dbus_interface_vtable_copy`): it need not outlive the call.
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, sender, path, interface, method, parameters, invocation, data in
            CallbackBox<Handler>.borrow(data)(MethodCall(
                invocation: invocation!, sender: sender.map { String(cString: $0) } ?? "",
                objectPath: String(cString: path!), interfaceName: String(cString: interface!),
                methodName: String(cString: method!), parameters: Variant(borrowing: parameters!)))
        }
        let id = g_dbus_connection_register_object(pointer, path, info, &vtable,
                                                   CallbackBox<Handler>(handler).retainedPointer(),
                                                   { data in CallbackBox<Handler>.release(data) }, &error)
        if id == 0 { throw DBusError(taking: error) }
    }

    /// Diverts incoming method calls for which `wanted` says yes (it runs on GDBus's worker
    /// thread, so it must only look at the message) to `handler` on the main loop, before GDBus
    /// dispatches them. Used to pass other interfaces through to the notification daemon.
    public func divertIncomingCalls(where wanted: @escaping @Sendable (Message) -> Bool,
                                    to handler: @escaping (Message) -> Void) {
        let filter = MessageDiversion(wanted: wanted, handler: handler)
        g_dbus_connection_add_filter(pointer, { _, message, incoming, data in
            guard incoming != 0, let message else { return message }
            let diversion = Unmanaged<MessageDiversion>.fromOpaque(data!).takeUnretainedValue()
            // The filter owns one reference; the wrapper takes a second of its own.
            g_object_ref(UnsafeMutableRawPointer(message))
            let wrapped = Message(owning: message)
            guard wrapped.kind == .methodCall, diversion.wanted(wrapped) else { return message }
            g_object_unref(UnsafeMutableRawPointer(message)) // dropped from GDBus's path
            MainLoop.invoke { diversion.deliver(wrapped) }
            return nil
        }, Unmanaged.passRetained(filter).toOpaque(), { data in
            Unmanaged<MessageDiversion>.fromOpaque(data!).release()
        })
    }
}

/// The state of one message filter, shared between GDBus's worker thread (which only reads the
/// immutable predicate) and the main loop (which runs the handler).
private final class MessageDiversion: @unchecked Sendable {
    let wanted: @Sendable (Message) -> Bool
    private let handler: (Message) -> Void
    init(wanted: @escaping @Sendable (Message) -> Bool, handler: @escaping (Message) -> Void) {
        self.wanted = wanted
        self.handler = handler
    }
    func deliver(_ message: Message) { handler(message) }
}
