import CSystemd
import FocusBridgeLoop

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

/// A connection to a message bus for the cold paths: calls, signals and exported objects with
/// `Variant` bodies (the control interface, the tray, the badges, logind, the sender look-ups).
///
/// Over sd-bus (a `MessageConnection` of its own, on the GLib main loop), with the manners D-Bus clients expect:
/// an exported object answers `Introspect` from its interface's XML and
/// `org.freedesktop.DBus.Properties`, refuses an unknown method (`UnknownMethod`) and arguments
/// that do not match the XML (`InvalidArgs`); calls never start a service (no auto-start) and
/// check the reply's type when one is given. Bodies are converted by `BusMessage+Variant`.
public final class VariantConnection {
    private var connection: MessageConnection
    private var subscriptions: [UInt32: MessageConnection.Match] = [:]
    private var nextSubscription: UInt32 = 1
    /// Exported interfaces by object path, in the order exported.
    private var objects: [String: [ExportedInterface]] = [:]

    private init(_ connection: MessageConnection) { self.connection = connection }

    /// Connects to `address` again, in place of this (closed) connection, so that everything
    /// holding this object uses the new one. Signal subscriptions, exported objects and close
    /// handlers stay with the old connection: set up again what is needed.
    public func reconnect(address: String) throws(DBusError) {
        connection = try MessageConnection.connect(address: address)
        subscriptions = [:]
        objects = [:]
    }

    /// Connects to the bus at `address` (a message bus: Hello is sent, a unique name assigned).
    public static func connect(address: String) throws(DBusError) -> VariantConnection {
        VariantConnection(try MessageConnection.connect(address: address))
    }

    /// Not connected to anything until `reconnect` (see `MessageConnection.unconnected`).
    public static func unconnected() throws(DBusError) -> VariantConnection {
        VariantConnection(try MessageConnection.unconnected())
    }

    /// The session bus of `DBUS_SESSION_BUS_ADDRESS` (or the systemd user bus), as a private
    /// connection of our own.
    public static func session() throws(DBusError) -> VariantConnection {
        try connect(address: BusAddress.session())
    }

    /// The system bus, when there is one.
    public static func system() throws(DBusError) -> VariantConnection {
        try connect(address: BusAddress.system())
    }

    public var uniqueName: String { connection.uniqueName }

    public var isClosed: Bool { connection.isClosed }

    // MARK: Calls

    private func methodCall(_ destination: String, _ path: String, _ interface: String, _ method: String,
                            _ arguments: Variant?) throws(DBusError) -> BusMessage {
        let message = try connection.methodCall(destination, path, interface, method)
        try check(sd_bus_message_set_auto_start(message.pointer, 0), "no auto-start")
        if let arguments { try message.appendBody(arguments) }
        return message
    }

    /// The reply's body as a tuple, checked against `replyType` when there is one.
    private static func body(of reply: BusMessage, method: String, replyType: String?) throws(DBusError) -> Variant {
        if let replyType, "(\(reply.signature))" != replyType {
            throw DBusError(name: DBusError.invalidArgs,
                            message: "Method '\(method)' returned type '(\(reply.signature))', but expected '\(replyType)'")
        }
        try reply.rewind()
        return try reply.readBody()
    }

    /// Calls a method asynchronously; `completion` runs on the main loop with the reply tuple.
    public func call(_ destination: String, _ path: String, _ interface: String, _ method: String,
                     _ arguments: Variant? = nil, replyType: String? = nil, timeoutMilliseconds: Int32 = -1,
                     completion: @escaping (Result<Variant, DBusError>) -> Void) {
        let message: BusMessage
        do { message = try methodCall(destination, path, interface, method, arguments) } catch {
            MainLoop.whenIdle { completion(.failure(error)) }
            return
        }
        connection.call(message, timeoutMilliseconds: timeoutMilliseconds) { result in
            completion(result.flatMap { reply in
                Result { () throws(DBusError) -> Variant in try Self.body(of: reply, method: method, replyType: replyType) }
            })
        }
    }

    /// Calls a method and waits for the reply (start-up and command-line tools only).
    public func callSync(_ destination: String, _ path: String, _ interface: String, _ method: String,
                         _ arguments: Variant? = nil, replyType: String? = nil,
                         timeoutMilliseconds: Int32 = -1) throws(DBusError) -> Variant {
        let message = try methodCall(destination, path, interface, method, arguments)
        let reply = try connection.callSync(message, timeoutMilliseconds: timeoutMilliseconds)
        return try Self.body(of: reply, method: method, replyType: replyType)
    }

    /// Sends a raw message that expects no reply (a reply, a signal).
    public func send(_ message: RelayedMessage) {
        guard let message = message.message else { return }
        _ = sd_bus_send(nil, message.pointer, nil)
    }

    /// Emits a signal; with a `destination` it is unicast to that connection only.
    public func emitSignal(destination: String?, path: String, interface: String, name: String,
                           _ arguments: Variant) {
        guard let signal = try? connection.signal(path, interface, name, destination: destination),
              (try? signal.appendBody(arguments)) != nil else { return }
        try? connection.send(signal)
    }

    // MARK: Signals

    /// Subscribes to signals; nil fields match anything. Returns an ID for `unsubscribe`.
    @discardableResult
    public func subscribe(sender: String? = nil, interface: String? = nil, member: String? = nil,
                          path: String? = nil, arg0: String? = nil,
                          _ handler: @escaping (Signal) -> Void) -> UInt32 {
        var rule = "type='signal'"
        for (key, value) in [("sender", sender), ("interface", interface), ("member", member), ("path", path), ("arg0", arg0)] {
            if let value { rule += ",\(key)='\(value)'" }
        }
        guard let match = try? connection.cancellableMatch(rule, { message in
            guard (try? message.rewind()) != nil, let body = try? message.readBody() else { return }
            handler(Signal(sender: message.sender ?? "", path: message.path ?? "", interface: message.interface ?? "",
                           member: message.member ?? "", parameters: body))
        }) else { return 0 }
        let id = nextSubscription
        nextSubscription += 1
        subscriptions[id] = match
        return id
    }

    public func unsubscribe(_ id: UInt32) { subscriptions.removeValue(forKey: id)?.cancel() }

    /// Calls `handler` once when the connection closes (the bus went away).
    public func onClose(_ handler: @escaping () -> Void) { connection.onClose(handler) }

    // MARK: Names

    public enum NameRequestResult: Sendable { case primaryOwner, inQueue, exists, alreadyOwner }

    /// Asks the bus for a well-known name (RequestName); flags as in the D-Bus specification.
    public func requestName(_ name: String, allowReplacement: Bool = false, replaceExisting: Bool = false,
                            doNotQueue: Bool = true) throws(DBusError) -> NameRequestResult {
        try connection.requestName(name, allowReplacement: allowReplacement, replaceExisting: replaceExisting,
                                   doNotQueue: doNotQueue)
    }

    /// Gives a name back (ReleaseName, synchronously: shutting down).
    public func releaseName(_ name: String, timeoutMilliseconds: Int32 = -1) {
        connection.releaseName(name, timeoutMilliseconds: timeoutMilliseconds)
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
    /// `handler` receives every method call on it, and `org.freedesktop.DBus.Properties` calls
    /// for a property the XML has with the access asked for (`interfaceName` is then
    /// `org.freedesktop.DBus.Properties`, the parameters those of Get, GetAll or Set).
    public func export(path: String, interfaceXML xml: String, interface: String,
                       _ handler: @escaping (VariantCall) -> Void) throws(DBusError) {
        let isNewPath = objects[path] == nil
        if objects[path]?.contains(where: { $0.name == interface }) == true {
            throw DBusError(name: "org.freedesktop.DBus.Error.ObjectPathInUse",
                            message: "an object is already exported for the interface \(interface) at \(path)")
        }
        objects[path, default: []].append(ExportedInterface(name: interface, xml: xml, handler: handler))
        guard isNewPath else { return }
        try connection.serve(path: path) { [weak self] message in
            guard let self, message.kind == .methodCall else { return false }
            self.dispatch(IncomingCall(message), path: path)
            return true
        }
    }

    /// Diverts every incoming method call for which `wanted` says yes to `handler` (on the main
    /// loop, as every callback), before anything else sees it. Used by the session relays.
    public func divertIncomingCalls(where wanted: @escaping @Sendable (RelayedMessage) -> Bool,
                                    to handler: @escaping (RelayedMessage) -> Void) {
        try? connection.filter { message in
            guard message.kind == .methodCall else { return false }
            let wrapped = RelayedMessage(message)
            guard wanted(wrapped) else { return false }
            handler(wrapped)
            return true
        }
    }
}

/// One interface exported at a path: its XML, read at the first call that needs it (nothing is
/// read for an object nobody calls), and the handler of its calls.
final class ExportedInterface {
    let name: String
    private let xml: String
    let handler: (VariantCall) -> Void
    private var read: InterfaceDescription?

    init(name: String, xml: String, handler: @escaping (VariantCall) -> Void) {
        self.name = name
        self.xml = xml
        self.handler = handler
    }

    /// The interface as its XML has it (with no methods nor properties when the XML lacks it).
    var description: InterfaceDescription {
        if let read { return read }
        let description = InterfaceDescription(xml: xml, interface: name) ?? InterfaceDescription(empty: name)
        read = description
        return description
    }
}

extension VariantConnection {
    private static let propertiesInterface = "org.freedesktop.DBus.Properties"
    private static let introspectableInterface = "org.freedesktop.DBus.Introspectable"

    /// A method call at an exported path: Introspect, Properties, or one of the interfaces'.
    fileprivate func dispatch(_ call: IncomingCall, path: String) {
        let message = call.message
        let interfaces = objects[path] ?? []
        let member = message.member ?? ""
        let interface = message.interface
        func invalid(_ text: String) { call.fail(DBusError(name: DBusError.invalidArgs, message: text)) }
        func signature(_ expected: String) -> Bool {
            if message.signature == expected { return true }
            invalid("Type of message, '(\(message.signature))', does not match expected type '(\(expected))'")
            return false
        }
        func parameters() -> Variant? {
            do throws(DBusError) {
                try message.rewind()
                return try message.readBody()
            } catch {
                call.fail(error)
                return nil
            }
        }
        switch interface {
        case Self.introspectableInterface where member == "Introspect":
            guard signature("") else { return }
            let xml = introspection(path: path, interfaces: interfaces)
            return call.reply { reply throws(DBusError) in try reply.append(xml) }
        case Self.propertiesInterface where ["Get", "GetAll", "Set"].contains(member):
            let expected = ["Get": "ss", "GetAll": "s", "Set": "ssv"][member]!
            guard signature(expected), let arguments = parameters() else { return }
            let interfaceName = arguments.child(0).string ?? ""
            guard let exported = interfaces.first(where: { $0.name == interfaceName }) else {
                return invalid("No such interface '\(interfaceName)'")
            }
            if member != "GetAll" {
                let property = arguments.child(1).string ?? ""
                guard let info = exported.description.properties[property] else {
                    return invalid("No such property '\(property)'")
                }
                if member == "Get", !info.readable { return invalid("Property '\(property)' is not readable") }
                if member == "Set" {
                    guard info.writable else { return invalid("Property '\(property)' is not writable") }
                    let type = arguments.child(2).unboxed.typeString
                    guard type == info.type else {
                        return invalid("Error setting property '\(property)': Expected type '\(info.type)' but got '\(type)'")
                    }
                }
            }
            exported.handler(VariantCall(call, objectPath: path, interfaceName: Self.propertiesInterface,
                                        methodName: member, parameters: arguments))
        default:
            let candidates = interface.map { name in interfaces.filter { $0.name == name } } ?? interfaces
            guard let exported = candidates.first(where: { $0.description.methods[member] != nil }) else {
                if let interface, candidates.isEmpty {
                    return call.fail(DBusError(name: DBusError.unknownMethod,
                                               message: "No such interface '\(interface)' on object at path \(path)"))
                }
                return call.fail(DBusError(name: DBusError.unknownMethod, message: "No such method '\(member)'"))
            }
            guard signature(exported.description.methods[member]!), let arguments = parameters() else { return }
            exported.handler(VariantCall(call, objectPath: path, interfaceName: exported.name,
                                        methodName: member, parameters: arguments))
        }
    }

    /// The object's introspection: the standard interfaces, the exported ones as their XML
    /// has them, and the exported paths below it as child nodes.
    private func introspection(path: String, interfaces: [ExportedInterface]) -> String {
        var xml = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
        "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="s" name="property_name" direction="in"/>
              <arg type="v" name="value" direction="out"/>
            </method>
            <method name="GetAll">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="a{sv}" name="properties" direction="out"/>
            </method>
            <method name="Set">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="s" name="property_name" direction="in"/>
              <arg type="v" name="value" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg type="s" name="interface_name"/>
              <arg type="a{sv}" name="changed_properties"/>
              <arg type="as" name="invalidated_properties"/>
            </signal>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg type="s" name="xml_data" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg type="s" name="machine_uuid" direction="out"/>
            </method>
          </interface>

        """
        for exported in interfaces { xml += "  " + exported.description.xml + "\n" }
        let prefix = path == "/" ? "/" : path + "/"
        var children: [String] = []
        for other in objects.keys.sorted() where other.hasPrefix(prefix) {
            let child = String(other.dropFirst(prefix.count).prefix { $0 != "/" })
            if !child.isEmpty && !children.contains(child) { children.append(child) }
        }
        for child in children { xml += "  <node name=\"\(child)\"/>\n" }
        return xml + "</node>\n"
    }
}
