import CSystemd
import Glibc

/// The one owner of sd-bus message references (`sd_bus_message *`) in FocusBridge.
///
/// The bus hot path (`Notify` in, `Notify` out, the daemon's signals) reads and writes messages
/// through this type only: typed values in and out, one argument after another, in the order of
/// the signature. Reading moves the message's own read position (`rewind` goes back to the
/// start). A wrong type or a malformed value is a thrown `DBusError`, never a trap: what arrives
/// from the bus is input. No other code calls `sd_bus_message_ref` or `sd_bus_message_unref`.
public final class BusMessage: @unchecked Sendable {
    /// The wrapped `sd_bus_message *`, one reference owned for the lifetime of this object.
    let pointer: OpaquePointer

    /// The file descriptors a conversion to or from GVariant uses: a `Variant`'s handles (`h`)
    /// are indexes into a list that travels beside the body.
    var handleDescriptors: [Int32] = []

    /// Takes over a reference the caller owns (fresh from an `sd_bus_message_new_*`).
    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    /// Adds a reference to a message sd-bus lends to a callback.
    init(borrowing pointer: OpaquePointer) { self.pointer = sd_bus_message_ref(pointer) }

    deinit { sd_bus_message_unref(pointer) }

    // MARK: Header

    public enum Kind: Sendable { case methodCall, methodReturn, error, signal, other }

    public var kind: Kind {
        var type: UInt8 = 0
        guard sd_bus_message_get_type(pointer, &type) >= 0 else { return .other }
        switch Int32(type) {
        case Int32(SD_BUS_MESSAGE_METHOD_CALL): return .methodCall
        case Int32(SD_BUS_MESSAGE_METHOD_RETURN): return .methodReturn
        case Int32(SD_BUS_MESSAGE_METHOD_ERROR): return .error
        case Int32(SD_BUS_MESSAGE_SIGNAL): return .signal
        default: return .other
        }
    }

    public var sender: String? { sd_bus_message_get_sender(pointer).map { String(cString: $0) } }
    public var destination: String? { sd_bus_message_get_destination(pointer).map { String(cString: $0) } }
    public var path: String? { sd_bus_message_get_path(pointer).map { String(cString: $0) } }
    public var interface: String? { sd_bus_message_get_interface(pointer).map { String(cString: $0) } }
    public var member: String? { sd_bus_message_get_member(pointer).map { String(cString: $0) } }
    /// The body's signature, such as `susssasa{sv}i` (no parentheses).
    public var signature: String { sd_bus_message_get_signature(pointer, 1).map { String(cString: $0) } ?? "" }
    public var expectsReply: Bool { sd_bus_message_get_expect_reply(pointer) > 0 }

    // Header fields compared in place, as C strings: no String is made (the dispatch of every
    // incoming message reads them).
    private static func same(_ field: UnsafePointer<CChar>?, _ name: String) -> Bool {
        guard let field else { return false }
        return name.withCString { strcmp(field, $0) == 0 }
    }
    /// Whether the destination is `name` (false without one).
    public func hasDestination(_ name: String) -> Bool { Self.same(sd_bus_message_get_destination(pointer), name) }
    /// Whether the interface is `name` (false without one).
    public func hasInterface(_ name: String) -> Bool { Self.same(sd_bus_message_get_interface(pointer), name) }
    /// Whether the member is `name` (false without one).
    public func hasMember(_ name: String) -> Bool { Self.same(sd_bus_message_get_member(pointer), name) }
    public var hasInterfaceField: Bool { sd_bus_message_get_interface(pointer) != nil }
    public var hasMemberField: Bool { sd_bus_message_get_member(pointer) != nil }

    /// For an error reply: its name and text.
    public var error: DBusError? {
        guard let error = sd_bus_message_get_error(pointer), let name = error.pointee.name else { return nil }
        return DBusError(name: String(cString: name), message: error.pointee.message.map { String(cString: $0) } ?? "",
                         isRemote: !isMadeUpLocally)
    }

    /// sd-bus makes up the error replies for a time-out and a closed connection itself, sealed
    /// with the serial 0xFFFFFFFF (their sender says `org.freedesktop.DBus`, as the bus's own).
    var isMadeUpLocally: Bool {
        var cookie: UInt64 = 0
        return sd_bus_message_get_cookie(pointer, &cookie) >= 0 && cookie == 0xFFFF_FFFF
    }

    public func isMethodCall(interface: String?, member: String?) -> Bool {
        sd_bus_message_is_method_call(pointer, interface, member) > 0
    }

    /// Marks a call as expecting no reply (NO_REPLY_EXPECTED), as the call it passes on did.
    public func expectNoReply() throws(DBusError) { try check(sd_bus_message_set_expect_reply(pointer, 0), "no reply") }

    public func hasSignature(_ signature: String) -> Bool {
        signature.withCString { sd_bus_message_has_signature(pointer, $0) > 0 }
    }

    /// Sends the reply to this call with one `u` (a `Notify`'s ID), its reference held only
    /// here: no `BusMessage` is made around a reply that is sent at once.
    func sendReply(_ value: UInt32) throws(DBusError) {
        var reply: OpaquePointer?
        // As `IncomingCall.reply`: a reply sd-bus cannot make (the call expects none, the
        // connection is gone) is not sent, and no error either.
        guard sd_bus_message_new_method_return(pointer, &reply) >= 0, let reply else { return }
        defer { sd_bus_message_unref(reply) }
        var copy = value
        try check(sd_bus_message_append_basic(reply, code("u"), &copy), "append u")
        _ = sd_bus_send(nil, reply, nil)
    }

    // MARK: Reading, in signature order

    /// Goes back to the first argument.
    public func rewind() throws(DBusError) { try check(sd_bus_message_rewind(pointer, 1), "rewind") }

    public func readString() throws(DBusError) -> String { try readText(type: "s") }
    public func readObjectPath() throws(DBusError) -> String { try readText(type: "o") }

    public func readUInt32() throws(DBusError) -> UInt32 {
        var value: UInt32 = 0
        try check(sd_bus_message_read_basic(pointer, code("u"), &value), "read u")
        return value
    }

    public func readInt32() throws(DBusError) -> Int32 {
        var value: Int32 = 0
        try check(sd_bus_message_read_basic(pointer, code("i"), &value), "read i")
        return value
    }

    /// An `as`.
    public func readStrings() throws(DBusError) -> [String] {
        try check(sd_bus_message_enter_container(pointer, code("a"), "s"), "enter as")
        var values: [String] = []
        while true {
            var text: UnsafePointer<CChar>?
            let read = sd_bus_message_read_basic(pointer, code("s"), &text)
            try check(read, "read s of as")
            guard read > 0, let text else { break }
            values.append(String(cString: text))
        }
        try check(sd_bus_message_exit_container(pointer), "leave as")
        return values
    }

    /// Skips arguments of the given signature (`susssas`).
    public func skip(_ types: String) throws(DBusError) {
        try check(types.withCString { sd_bus_message_skip(pointer, $0) }, "skip \(types)")
    }

    /// Reads an `a{sv}` entry by entry: `entry` gets each key with the message positioned inside
    /// the entry's `v`, and must read the value (`readValue`) or leave it (it is skipped).
    public func readDictionary(_ entry: (String) throws(DBusError) -> Void) throws(DBusError) {
        try check(sd_bus_message_enter_container(pointer, code("a"), "{sv}"), "enter a{sv}")
        while true {
            let entered = sd_bus_message_enter_container(pointer, code("e"), "sv")
            try check(entered, "enter {sv}")
            if entered == 0 { break }
            let key = try readString()
            try entry(key)
            if sd_bus_message_at_end(pointer, 0) == 0 { try skip("v") }
            try check(sd_bus_message_exit_container(pointer), "leave {sv}")
        }
        try check(sd_bus_message_exit_container(pointer), "leave a{sv}")
    }

    /// The value in the `v` at the read position, in the few shapes readers care about; anything
    /// else is `.other` with its signature. `weight` is roughly its size on the wire.
    public func readValue<Value: BusScalarValue>(as _: Value.Type = Value.self) throws(DBusError) -> (value: Value, weight: Int) {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        try check(sd_bus_message_peek_type(pointer, &type, &contents), "peek v")
        guard type == code("v"), let contents else { throw DBusError(name: DBusError.invalidArgs, message: "not a variant") }
        let signature = String(cString: contents)
        try check(sd_bus_message_enter_container(pointer, code("v"), contents), "enter v")
        let read: (Value, Int)
        switch signature {
        case "s", "o", "g":
            let text = try readText(type: Unicode.Scalar(UInt8(bitPattern: contents[0])))
            read = (.string(text), text.utf8.count + 5)
        case "y": read = (.integer(Int64(try readBasic(UInt8.self, "y"))), 1)
        case "n": read = (.integer(Int64(try readBasic(Int16.self, "n"))), 2)
        case "q": read = (.integer(Int64(try readBasic(UInt16.self, "q"))), 2)
        case "i": read = (.integer(Int64(try readBasic(Int32.self, "i"))), 4)
        case "u": read = (.integer(Int64(try readBasic(UInt32.self, "u"))), 4)
        case "x": read = (.integer(try readBasic(Int64.self, "x")), 8)
        case "t":
            let value = try readBasic(UInt64.self, "t")
            read = (.integer(value > UInt64(Int64.max) ? Int64.max : Int64(value)), 8)
        case "b": read = (.bool(try readBasic(Int32.self, "b") != 0), 4)
        case "d": read = (.double(try readBasic(Double.self, "d")), 8)
        case "as":
            let texts = try readStrings()
            read = (.strings(texts), texts.reduce(4) { $0 + $1.utf8.count + 5 })
        default:
            read = (.other(signature: signature), try skipMeasuring())
        }
        try check(sd_bus_message_exit_container(pointer), "leave v")
        return read
    }


    /// Skips the next complete value, returning about how many bytes it takes on the wire
    /// (arrays of fixed-size values are measured without being walked).
    func skipMeasuring() throws(DBusError) -> Int {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(pointer, &type, &contents)
        try check(peeked, "peek")
        guard peeked > 0 else { return 0 }
        let signature = contents.map { String(cString: $0) }
        // Arrays of fixed-size numbers in one piece (`ah` is not one: its elements index descriptors).
        if type == code("a"), let signature, signature.count == 1, signature != "h", let size = Self.fixedSize[signature.first!] {
            var data: UnsafeRawPointer?
            var bytes = 0
            try check(sd_bus_message_read_array(pointer, CChar(Int8(bitPattern: signature.utf8.first!)), &data, &bytes), "read a\(signature)")
            return 4 + bytes + (size > 4 ? 4 : 0)
        }
        if let signature, Self.isContainer(type) {
            try check(sd_bus_message_enter_container(pointer, type, signature), "enter")
            var total = type == code("v") ? signature.utf8.count + 2 : 4
            while sd_bus_message_at_end(pointer, 0) == 0 { total += try skipMeasuring() }
            try check(sd_bus_message_exit_container(pointer), "leave")
            return total
        }
        let basic = Character(Unicode.Scalar(UInt8(bitPattern: type)))
        try skip(String(basic))
        return Self.fixedSize[basic] ?? 16
    }

    /// Sizes of the fixed-size basic types on the wire.
    static let fixedSize: [Character: Int] = ["y": 1, "b": 4, "n": 2, "q": 2, "i": 4, "u": 4, "x": 8, "t": 8, "d": 8, "h": 4]

    private func readText(type: Unicode.Scalar) throws(DBusError) -> String {
        var text: UnsafePointer<CChar>?
        let read = sd_bus_message_read_basic(pointer, code(type), &text)
        try check(read, "read \(type)")
        guard read > 0, let text else { throw DBusError(name: DBusError.invalidArgs, message: "no \(type) left to read") }
        return String(cString: text)
    }

    private func readBasic<T>(_: T.Type, _ type: Unicode.Scalar) throws(DBusError) -> T where T: FixedWidthInteger {
        var value: T = 0
        let read = sd_bus_message_read_basic(pointer, code(type), &value)
        try check(read, "read \(type)")
        guard read > 0 else { throw DBusError(name: DBusError.invalidArgs, message: "no \(type) left to read") }
        return value
    }

    private func readBasic(_: Double.Type, _ type: Unicode.Scalar) throws(DBusError) -> Double {
        var value: Double = 0
        let read = sd_bus_message_read_basic(pointer, code(type), &value)
        try check(read, "read \(type)")
        guard read > 0 else { throw DBusError(name: DBusError.invalidArgs, message: "no \(type) left to read") }
        return value
    }

    // MARK: Appending, in signature order

    // Strings go to C through `withCString`: passing a `String` where C takes a pointer copies
    // it into a fresh array first (a malloc and free per argument).
    public func append(_ value: String) throws(DBusError) {
        try check(value.withCString { sd_bus_message_append_basic(pointer, code("s"), $0) }, "append s")
    }

    public func appendObjectPath(_ value: String) throws(DBusError) {
        try check(value.withCString { sd_bus_message_append_basic(pointer, code("o"), $0) }, "append o")
    }

    public func append(_ value: UInt32) throws(DBusError) { try appendBasic(value, "u") }
    public func append(_ value: Int32) throws(DBusError) { try appendBasic(value, "i") }
    public func append(_ value: Int64) throws(DBusError) { try appendBasic(value, "x") }
    public func append(_ value: UInt8) throws(DBusError) { try appendBasic(value, "y") }
    public func append(_ value: Double) throws(DBusError) {
        var copy = value
        try check(sd_bus_message_append_basic(pointer, code("d"), &copy), "append d")
    }
    public func append(_ value: Bool) throws(DBusError) { try appendBasic(Int32(value ? 1 : 0), "b") }

    /// An `as`.
    public func append(strings: [String]) throws(DBusError) {
        try open("a", "s")
        for text in strings { try append(text) }
        try close()
    }

    /// Opens a container: `a` with its element signature, `v` with its content's, `r` (a struct)
    /// or `e` (a dictionary entry) with their members'. Close it with `close()`.
    public func open(_ type: Unicode.Scalar, _ contents: String) throws(DBusError) {
        try check(contents.withCString { sd_bus_message_open_container(pointer, code(type), $0) }, "open \(type)\(contents)")
    }

    public func close() throws(DBusError) { try check(sd_bus_message_close_container(pointer), "close container") }

    /// One `{sv}` entry whose value is built by `value` inside a `v` of `signature`.
    public func appendEntry(_ key: String, signature: String, _ value: (BusMessage) throws(DBusError) -> Void) throws(DBusError) {
        try open("e", "sv")
        try append(key)
        try open("v", signature)
        try value(self)
        try close()
        try close()
    }

    /// Opens an `a{sv}` (close it with `close()`).
    public func openDictionary() throws(DBusError) {
        try check(sd_bus_message_open_container(pointer, code("a"), "{sv}"), "open a{sv}")
    }

    // One `{sv}` entry of a basic value (the hints the bridge adds to every forwarded Notify):
    // the signatures are C literals, no closure is made.
    public func appendEntry(_ key: String, byte value: UInt8) throws(DBusError) {
        try openEntry(key)
        try check(sd_bus_message_open_container(pointer, code("v"), "y"), "open vy")
        try appendBasic(value, "y")
        try closeEntry()
    }

    public func appendEntry(_ key: String, bool value: Bool) throws(DBusError) {
        try openEntry(key)
        try check(sd_bus_message_open_container(pointer, code("v"), "b"), "open vb")
        try appendBasic(Int32(value ? 1 : 0), "b")
        try closeEntry()
    }

    public func appendEntry(_ key: String, string value: String) throws(DBusError) {
        try openEntry(key)
        try check(sd_bus_message_open_container(pointer, code("v"), "s"), "open vs")
        try append(value)
        try closeEntry()
    }

    public func appendEntry(_ key: String, int64 value: Int64) throws(DBusError) {
        try openEntry(key)
        try check(sd_bus_message_open_container(pointer, code("v"), "x"), "open vx")
        try appendBasic(value, "x")
        try closeEntry()
    }

    private func openEntry(_ key: String) throws(DBusError) {
        try check(sd_bus_message_open_container(pointer, code("e"), "sv"), "open e")
        try append(key)
    }

    private func closeEntry() throws(DBusError) {
        try close()
        try close()
    }

    /// Copies `source`'s `a{sv}` at its read position entry by entry where `keep` says yes,
    /// byte for byte (the values are not decoded), into the `a{sv}` open here; `source` is left
    /// after the array.
    public func appendEntries(copying source: BusMessage, where keep: (String) -> Bool) throws(DBusError) {
        try check(sd_bus_message_enter_container(source.pointer, code("a"), "{sv}"), "enter a{sv}")
        while true {
            let entered = sd_bus_message_enter_container(source.pointer, code("e"), "sv")
            try check(entered, "enter {sv}")
            if entered == 0 { break }
            let key = try source.readString()
            if keep(key) {
                try open("e", "sv")
                try append(key)
                try copyValue(from: source)
                try close()
            } else {
                try source.skip("v")
            }
            try check(sd_bus_message_exit_container(source.pointer), "leave {sv}")
        }
        try check(sd_bus_message_exit_container(source.pointer), "leave a{sv}")
    }

    /// Copies the next complete value of `source` here. Arrays of fixed-size numbers (image data)
    /// go in one piece: `sd_bus_message_copy` copies them element by element (a 64×64 image is
    /// 16,384 reads and appends).
    func copyValue(from source: BusMessage) throws(DBusError) {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(source.pointer, &type, &contents)
        try check(peeked, "peek")
        guard peeked > 0 else { throw DBusError(name: DBusError.invalidArgs, message: "no value left to copy") }
        guard let contents, Self.isContainer(type) else {
            return try check(sd_bus_message_copy(pointer, source.pointer, 0), "copy")
        }
        if type == code("a"), contents[0] != 0, contents[1] == 0, Self.isTrivialArray(contents[0]) {
            var data: UnsafeRawPointer?
            var bytes = 0
            try check(sd_bus_message_read_array(source.pointer, contents[0], &data, &bytes), "read array")
            return try check(sd_bus_message_append_array(pointer, contents[0], data, bytes), "append array")
        }
        try check(sd_bus_message_enter_container(source.pointer, type, contents), "enter")
        try check(sd_bus_message_open_container(pointer, type, contents), "open")
        while sd_bus_message_at_end(source.pointer, 0) == 0 { try copyValue(from: source) }
        try check(sd_bus_message_exit_container(source.pointer), "leave")
        try check(sd_bus_message_close_container(pointer), "close")
    }

    /// Element types of the arrays sd-bus reads and writes in one piece (not `h`: descriptors).
    static func isTrivialArray(_ element: CChar) -> Bool {
        switch element {
        case code("y"), code("b"), code("n"), code("q"), code("i"), code("u"), code("x"), code("t"), code("d"): true
        default: false
        }
    }

    /// Array, variant, struct, dictionary entry (a switch: no array built per value).
    static func isContainer(_ type: CChar) -> Bool {
        type == code("a") || type == code("v") || type == code("r") || type == code("e")
    }

    /// Copies every argument from `source`'s read position to its end (a call passed through).
    public func appendRest(copying source: BusMessage) throws(DBusError) {
        try check(sd_bus_message_copy(pointer, source.pointer, 1), "copy")
    }

    private func appendBasic<T: BitwiseCopyable>(_ value: T, _ type: Unicode.Scalar) throws(DBusError) {
        var copy = value
        try check(sd_bus_message_append_basic(pointer, code(type), &copy), "append \(type)")
    }

    /// Seals a message built here so that it can be read (tests; sending seals by itself).
    public func sealForReading() throws(DBusError) {
        try check(sd_bus_message_seal(pointer, 1, 0), "seal")
        try rewind()
    }
}

/// The C `char` of a D-Bus type code. A `Unicode.Scalar`, not a `Character`: a `Character`'s
/// `asciiValue` walks the grapheme's scalars on every call, and every argument of every
/// `Notify` reads or writes type codes.
@inline(__always) func code(_ type: Unicode.Scalar) -> CChar { CChar(truncatingIfNeeded: type.value) }

/// The same for a type code held as a `Character` (the GVariant conversions, off the hot path).
func code(character type: Character) -> CChar { CChar(Int8(bitPattern: type.asciiValue ?? 0)) }

/// sd-bus returns a negative errno on failure.
@inline(__always) func check(_ result: Int32, _ what: @autoclosure () -> String) throws(DBusError) {
    if result < 0 {
        throw DBusError(name: DBusError.invalidArgs, message: "\(what()): \(String(cString: strerror(-result)))")
    }
}

/// What `BusMessage.readValue` makes of a variant: a text, any integer type (`y n q i u x t`:
/// clients send urgency as byte, int or uint), a boolean, a double, a list of texts, or another
/// type by its signature (image data, nested containers, a file descriptor). The reader's own
/// type conforms (the core's `HintValue`, whose cases are these), so a hint is read into it once,
/// with no second enum and no conversion between them.
public protocol BusScalarValue {
    static func string(_ text: String) -> Self
    static func integer(_ number: Int64) -> Self
    static func bool(_ flag: Bool) -> Self
    static func double(_ number: Double) -> Self
    static func strings(_ texts: [String]) -> Self
    static func other(signature: String) -> Self
}
