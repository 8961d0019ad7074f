import CGLib
import CSystemd
import FocusBridgeLoop

/// A connection to a message bus over sd-bus whose messages are typed `BusMessage`s, read and
/// written in place: the bus hot path, few instructions per call and no worker thread
/// (docs/BENCHMARKS.md has the figures). `VariantConnection` is the same bus with `Variant`
/// bodies, for the cold paths. It runs
/// on the GLib main loop (`SdBusSource`); every callback runs on the loop's thread.
///
/// Typed throughout: messages are `BusMessage`s, errors `DBusError`s; nothing outside
/// FocusBridgeDBus sees sd-bus.
public final class MessageConnection {
    let bus: OpaquePointer // sd_bus*, one reference owned
    private var source: SdBusSource?
    /// Slots (objects, filters, matches) live as long as the connection, with their closures.
    private var slots: [OpaquePointer] = []
    private var boxes: [AnyObject] = []
    private var matches: [Match] = []
    private var closeHandlers: [() -> Void] = []

    private init(bus: OpaquePointer, started: Bool = true) {
        self.bus = bus
        if started { source = SdBusSource(bus: bus) { [weak self] in self?.closed() } }
    }

    /// A connection that is not connected to anything (`isClosed`; every call fails with
    /// `Disconnected`): what stands for a bus that is not there yet until `reconnect` finds it.
    public static func unconnected() throws(DBusError) -> MessageConnection {
        var bus: OpaquePointer?
        try check(sd_bus_new(&bus), "sd_bus_new")
        guard let bus else { throw DBusError(name: DBusError.failed, message: "sd_bus_new") }
        return MessageConnection(bus: bus, started: false)
    }

    deinit {
        source?.destroy()
        for match in matches { match.cancel() }
        for slot in slots { sd_bus_slot_unref(slot) }
        sd_bus_flush_close_unref(bus)
    }

    /// Connects to the message bus at `address` (authenticates and says Hello: a unique name).
    public static func connect(address: String) throws(DBusError) -> MessageConnection {
        var bus: OpaquePointer?
        try check(sd_bus_new(&bus), "sd_bus_new")
        guard let bus else { throw DBusError(name: DBusError.failed, message: "sd_bus_new") }
        var result = sd_bus_set_address(bus, address)
        if result >= 0 { result = sd_bus_set_bus_client(bus, 1) }
        if result >= 0 { result = sd_bus_negotiate_fds(bus, 1) }
        if result >= 0 { result = sd_bus_start(bus) }
        // sd_bus_start only connects: Hello's answer (the unique name) is waited for here, once.
        var unique: UnsafePointer<CChar>?
        if result >= 0 { result = withSignalsHeld { sd_bus_get_unique_name(bus, &unique) } }
        if result < 0 {
            sd_bus_unref(bus)
            throw DBusError(name: DBusError.disconnected,
                            message: "cannot connect to \(address): \(String(cString: strerror(-result)))")
        }
        return MessageConnection(bus: bus)
    }

    /// The session bus, found as GLib finds it (`DBUS_SESSION_BUS_ADDRESS`, else the systemd
    /// user bus), as a private connection of our own.
    public static func session() throws(DBusError) -> MessageConnection {
        try connect(address: BusAddress.session())
    }

    public var uniqueName: String {
        var unique: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &unique) >= 0, let unique else { return "" }
        return String(cString: unique)
    }

    public var isClosed: Bool { sd_bus_is_open(bus) <= 0 }

    /// Calls `handler` once when the connection ends (the bus went away).
    public func onClose(_ handler: @escaping () -> Void) { closeHandlers.append(handler) }

    private func closed() {
        source?.destroy()
        source = nil
        let handlers = closeHandlers
        closeHandlers = []
        for handler in handlers { handler() }
    }

    // MARK: Messages

    public func methodCall(_ destination: String?, _ path: String, _ interface: String?, _ member: String) throws(DBusError) -> BusMessage {
        var message: OpaquePointer?
        // `withCString`, not a String passed as a pointer: that copies each into a fresh array.
        let result = withOptionalCString(destination) { destination in
            path.withCString { path in
                withOptionalCString(interface) { interface in
                    member.withCString { sd_bus_message_new_method_call(bus, &message, destination, path, interface, $0) }
                }
            }
        }
        try check(result, "new call \(member)")
        return BusMessage(owning: message!)
    }

    /// A signal; with a `destination` it goes to that connection only.
    public func signal(_ path: String, _ interface: String, _ member: String, destination: String? = nil) throws(DBusError) -> BusMessage {
        var message: OpaquePointer?
        try check(sd_bus_message_new_signal(bus, &message, path, interface, member), "new signal \(member)")
        let signal = BusMessage(owning: message!)
        if let destination { try check(sd_bus_message_set_destination(message, destination), "destination") }
        return signal
    }

    /// Sends a message that expects no reply (a signal, a reply).
    public func send(_ message: BusMessage) throws(DBusError) {
        try check(sd_bus_send(bus, message.pointer, nil), "send")
    }

    /// Sends a method call; `completion` runs on the main loop with the reply, or the error (a
    /// remote one, a time-out, `Disconnected` when the connection ended first). A timeout of
    /// `Int32.max` milliseconds waits as long as the connection lives; -1 is sd-bus's default (25 s).
    public func call(_ message: BusMessage, timeoutMilliseconds: Int32 = -1,
                     completion: @escaping (Result<BusMessage, DBusError>) -> Void) {
        typealias Completion = (Result<BusMessage, DBusError>) -> Void
        let usec: UInt64 = switch timeoutMilliseconds {
        case Int32.max: UInt64.max
        case ..<0: 0
        default: UInt64(timeoutMilliseconds) * 1000
        }
        let box = CallbackBox<Completion>(completion).retainedPointer()
        let result = sd_bus_call_async(bus, nil, message.pointer, { reply, data, _ in
            let completion = CallbackBox<Completion>.take(data)
            guard let reply else { completion(.failure(DBusError(name: DBusError.failed, message: "no reply"))); return 1 }
            let message = BusMessage(borrowing: reply)
            completion(message.failure.map { .failure($0) } ?? .success(message))
            return 1
        }, box, usec)
        if result < 0 {
            CallbackBox<Completion>.release(box)
            let error = DBusError(name: isClosed ? DBusError.disconnected : DBusError.failed,
                                  message: "cannot send \(message.member ?? "a call"): \(String(cString: strerror(-result)))")
            // The failure arrives from the loop, not from inside the call, as every answer does:
            // a completion never runs before `call` returns.
            MainLoop.whenIdle { completion(.failure(error)) }
        }
    }

    /// Calls and waits for the reply (start-up only: names, nothing on the hot path).
    public func callSync(_ message: BusMessage, timeoutMilliseconds: Int32 = -1) throws(DBusError) -> BusMessage {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let usec: UInt64 = timeoutMilliseconds < 0 ? 0 : UInt64(timeoutMilliseconds) * 1000
        let result = withSignalsHeld { sd_bus_call(bus, message.pointer, usec, &error, &reply) }
        if result < 0 {
            if let name = error.name {
                throw DBusError(name: String(cString: name), message: error.message.map { String(cString: $0) } ?? "",
                                isRemote: true)
            }
            throw DBusError(name: isClosed ? DBusError.disconnected : DBusError.failed,
                            message: String(cString: strerror(-result)))
        }
        return BusMessage(owning: reply!)
    }

    // MARK: Serving

    /// Every method call for `path` goes to `handler` first; it returns false for what it does
    /// not answer (sd-bus then answers Peer, Introspect of the tree, or UnknownMethod). No
    /// privilege query per call (that is only sd-bus's vtables without SD_BUS_VTABLE_UNPRIVILEGED).
    public func serve(path: String, _ handler: @escaping (BusMessage) -> Bool) throws(DBusError) {
        typealias Handler = (BusMessage) -> Bool
        let box = CallbackBox<Handler>(handler)
        var slot: OpaquePointer?
        try check(sd_bus_add_object(bus, &slot, path, { message, data, _ in
            CallbackBox<Handler>.borrow(data)(BusMessage(borrowing: message!)) ? 1 : 0
        }, Unmanaged.passUnretained(box).toOpaque()), "serve \(path)")
        keep(slot, box)
    }

    /// Every incoming message goes to `handler` before anything else; it returns true for one it
    /// took (it is then not dispatched further). For passing calls through.
    public func filter(_ handler: @escaping (BusMessage) -> Bool) throws(DBusError) {
        typealias Handler = (BusMessage) -> Bool
        let box = CallbackBox<Handler>(handler)
        var slot: OpaquePointer?
        try check(sd_bus_add_filter(bus, &slot, { message, data, _ in
            CallbackBox<Handler>.borrow(data)(BusMessage(borrowing: message!)) ? 1 : 0
        }, Unmanaged.passUnretained(box).toOpaque()), "filter")
        keep(slot, box)
    }

    // MARK: Signals

    /// Receives the messages matching `rule` (D-Bus match rule syntax), installed asynchronously,
    /// for as long as the connection lives.
    public func match(_ rule: String, _ handler: @escaping (BusMessage) -> Void) throws(DBusError) {
        _ = try cancellableMatch(rule, handler)
    }

    /// The same, until `cancel()` on the result (the match rule is then removed from the bus).
    public func cancellableMatch(_ rule: String, _ handler: @escaping (BusMessage) -> Void) throws(DBusError) -> Match {
        typealias Handler = (BusMessage) -> Void
        let box = CallbackBox<Handler>(handler)
        var slot: OpaquePointer?
        try check(sd_bus_add_match_async(bus, &slot, rule, { message, data, _ in
            CallbackBox<Handler>.borrow(data)(BusMessage(borrowing: message!))
            return 0
        }, nil, Unmanaged.passUnretained(box).toOpaque()), "match \(rule)")
        let match = Match(slot: slot, box: box)
        matches.append(match)
        return match
    }

    /// A match rule and its handler; `cancel()` ends it (the connection ends it at the latest).
    public final class Match {
        private var slot: OpaquePointer?
        private var box: AnyObject?
        init(slot: OpaquePointer?, box: AnyObject) {
            self.slot = slot
            self.box = box
        }
        public func cancel() {
            if let slot { sd_bus_slot_unref(slot) }
            slot = nil
            box = nil
        }
    }

    /// Watches who owns `name`: `changed` gets the unique owner, or nil when it has none; the
    /// current owner is reported once at the start.
    public func watchName(_ name: String, _ changed: @escaping (String?) -> Void) throws(DBusError) {
        try match("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                  + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'") { signal in
            guard (try? signal.readString()) == name, (try? signal.readString()) != nil,
                  let owner = try? signal.readString() else { return }
            changed(owner.isEmpty ? nil : owner)
        }
        let ask = try busCall("GetNameOwner")
        try ask.append(name)
        call(ask) { result in
            changed((try? result.get().readString()).flatMap { $0.isEmpty ? nil : $0 })
        }
    }

    /// Calls `lost` with each name this connection loses (NameLost, sent to it alone).
    public func onNameLost(_ lost: @escaping (String) -> Void) throws(DBusError) {
        try match("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                  + "interface='org.freedesktop.DBus',member='NameLost'") { signal in
            if let name = try? signal.readString() { lost(name) }
        }
    }

    // MARK: Names

    /// Asks the bus for a well-known name (RequestName, synchronously: start-up), with the
    /// flags of the D-Bus specification, as `VariantConnection.requestName`.
    public func requestName(_ name: String, allowReplacement: Bool = false, replaceExisting: Bool = false,
                            doNotQueue: Bool = true) throws(DBusError) -> VariantConnection.NameRequestResult {
        let flags: UInt32 = (allowReplacement ? 1 : 0) | (replaceExisting ? 2 : 0) | (doNotQueue ? 4 : 0)
        let request = try busCall("RequestName")
        try request.append(name)
        try request.append(flags)
        switch try callSync(request).readUInt32() {
        case 1: return .primaryOwner
        case 2: return .inQueue
        case 4: return .alreadyOwner
        default: return .exists
        }
    }

    /// Gives a name back (ReleaseName, synchronously: shutting down).
    public func releaseName(_ name: String, timeoutMilliseconds: Int32) {
        guard let release = try? busCall("ReleaseName"), (try? release.append(name)) != nil else { return }
        _ = try? callSync(release, timeoutMilliseconds: timeoutMilliseconds)
    }

    private func busCall(_ member: String) throws(DBusError) -> BusMessage {
        try methodCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", member)
    }

    private func keep(_ slot: OpaquePointer?, _ box: AnyObject) {
        if let slot { slots.append(slot) }
        boxes.append(box)
    }
}

extension BusMessage {
    /// The error of an error reply, with sd-bus's own for a call that cannot be answered any
    /// more named `org.freedesktop.DBus.Error.Disconnected`, so callers match on names only.
    var failure: DBusError? {
        guard kind == .error, var error = error else { return nil }
        if !error.isRemote, let bus = sd_bus_message_get_bus(pointer), sd_bus_is_open(bus) <= 0 {
            error = DBusError(name: DBusError.disconnected, message: error.message)
        }
        return error
    }
}

/// `text` as a C string for `body`, or nil without one.
@inline(__always)
func withOptionalCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> Result) -> Result {
    guard let text else { return body(nil) }
    return text.withCString(body)
}

/// Runs `body`, a wait for the bus (Hello's answer, a synchronous call at start-up or shut-down,
/// focusctl's calls), with every signal that has a handler held until it returns. sd-bus waits in
/// `ppoll`, which a handled signal interrupts whatever the handler's flags: a SIGTERM during
/// start-up made RequestName fail with "Interrupted system call" and the bridge exit 1 instead of
/// stopping cleanly (test_state.py in CI). Held, the signal reaches its handler (GLib's) as soon as
/// the wait is over. A signal left to its default action is not held: it never interrupts a wait,
/// and Ctrl-C still ends focusctl at once.
func withSignalsHeld(_ body: () -> Int32) -> Int32 {
    var handled = sigset_t()
    var previous = sigset_t()
    sigemptyset(&handled)
    for signal in Int32(1)..<32 { // the standard signals (GLib handles no real-time one)
        var action = sigaction()
        if sigaction(signal, nil, &action) == 0, action.__sigaction_handler.sa_handler.map({ handler in
            unsafeBitCast(handler, to: Int.self) > 1 // neither SIG_DFL (0) nor SIG_IGN (1)
        }) ?? false {
            sigaddset(&handled, signal)
        }
    }
    pthread_sigmask(SIG_BLOCK, &handled, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    return body()
}
