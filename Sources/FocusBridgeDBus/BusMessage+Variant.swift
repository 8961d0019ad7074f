import CGLib
import CSystemd

/// The edge between the sd-bus hot path and GVariant: a value read from a message as a
/// `Variant`, and a `Variant` appended to a message.
///
/// For the cold paths only (a held notification's stored arguments, a replay after a restart, the
/// bridge's own notifications built as `Variant`s): what the bridge forwards unchanged on the hot
/// path is copied message to message (`appendEntries(copying:where:)`), never converted. Both
/// directions are exact: the D-Bus encoding of a value read here and appended again is the same.
extension BusMessage {
    /// The next complete value at the read position, as a `Variant` of the same type.
    public func readVariant() throws(DBusError) -> Variant {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(pointer, &type, &contents)
        try check(peeked, "peek")
        guard peeked > 0 else { throw DBusError(name: DBusError.invalidArgs, message: "no value left to read") }
        let inner = contents.map { String(cString: $0) } ?? ""
        switch type {
        case code("a"):
            if inner.count == 1, let element = inner.first, "ynqiuxtd".contains(element) {
                var data: UnsafeRawPointer?
                var bytes = 0
                try check(sd_bus_message_read_array(pointer, code(character: element), &data, &bytes), "read a\(inner)")
                let elementType = g_variant_type_new(inner)
                defer { g_variant_type_free(elementType) }
                let size = BusMessage.fixedSize[element]!
                return Variant(owning: g_variant_new_fixed_array(elementType, bytes == 0 ? nil : data, gsize(bytes / size), gsize(size)))
            }
            let children = try readChildren(type, inner)
            return Variant.array(of: inner, children)
        case code("v"):
            let children = try readChildren(type, inner)
            guard children.count == 1 else { throw DBusError(name: DBusError.invalidArgs, message: "a variant holds one value") }
            return Variant.boxed(children[0])
        case code("r"):
            return Variant.tuple(try readChildren(type, inner))
        case code("e"):
            let children = try readChildren(type, inner)
            guard children.count == 2 else { throw DBusError(name: DBusError.invalidArgs, message: "a dictionary entry holds two values") }
            return withExtendedLifetime(children) { Variant(owning: g_variant_new_dict_entry(children[0].pointer, children[1].pointer)) }
        default:
            return try readBasicVariant(type)
        }
    }

    /// Every remaining argument as one tuple (a whole body: the stored form of a held `Notify`).
    public func readBody() throws(DBusError) -> Variant {
        var values: [Variant] = []
        while sd_bus_message_at_end(pointer, 0) == 0 { values.append(try readVariant()) }
        return Variant.tuple(values)
    }

    /// The same with the file descriptors its handles index (owned by this message: duplicate
    /// them to keep them).
    public func readBody(fileDescriptors: inout [Int32]) throws(DBusError) -> Variant {
        handleDescriptors = []
        defer { handleDescriptors = [] }
        let body = try readBody()
        fileDescriptors = handleDescriptors
        return body
    }

    /// Appends each member of a tuple as one argument, its handles indexing `fileDescriptors`
    /// (sd-bus duplicates each descriptor it appends).
    public func appendBody(_ tuple: Variant, fileDescriptors: [Int32]) throws(DBusError) {
        handleDescriptors = fileDescriptors
        defer { handleDescriptors = [] }
        try appendBody(tuple)
    }

    private func readChildren(_ type: CChar, _ contents: String) throws(DBusError) -> [Variant] {
        try check(sd_bus_message_enter_container(pointer, type, contents), "enter")
        var children: [Variant] = []
        while sd_bus_message_at_end(pointer, 0) == 0 { children.append(try readVariant()) }
        try check(sd_bus_message_exit_container(pointer), "leave")
        return children
    }

    private func readBasicVariant(_ type: CChar) throws(DBusError) -> Variant {
        func read<T: BitwiseCopyable>(_ initial: T) throws(DBusError) -> T {
            var value = initial
            try check(sd_bus_message_read_basic(pointer, type, &value), "read")
            return value
        }
        switch type {
        case code("s"), code("o"), code("g"):
            let text = try read(UnsafePointer<CChar>?.none)
            guard let text else { throw DBusError(name: DBusError.invalidArgs, message: "no text") }
            switch type {
            case code("s"): return Variant(owning: g_variant_new_string(text))
            case code("o"): return Variant(owning: g_variant_new_object_path(text))
            default: return Variant(owning: g_variant_new_signature(text))
            }
        case code("y"): return Variant(owning: g_variant_new_byte(try read(UInt8(0))))
        case code("b"): return Variant(owning: g_variant_new_boolean(try read(Int32(0)) != 0 ? 1 : 0))
        case code("n"): return Variant(owning: g_variant_new_int16(try read(Int16(0))))
        case code("q"): return Variant(owning: g_variant_new_uint16(try read(UInt16(0))))
        case code("i"): return Variant(owning: g_variant_new_int32(try read(Int32(0))))
        case code("u"): return Variant(owning: g_variant_new_uint32(try read(UInt32(0))))
        case code("x"): return Variant(owning: g_variant_new_int64(try read(gint64(0))))
        case code("t"): return Variant(owning: g_variant_new_uint64(try read(guint64(0))))
        case code("d"): return Variant(owning: g_variant_new_double(try read(Double(0))))
        case code("h"):
            // The descriptor stays with the message; the handle is its place in the list read
            // beside the body (`readBody(fileDescriptors:)`), or 0 in a stored copy.
            let fd = try read(Int32(0))
            handleDescriptors.append(fd)
            return Variant(owning: g_variant_new_handle(gint32(handleDescriptors.count - 1)))
        default:
            throw DBusError(name: DBusError.invalidArgs, message: "unknown type code \(type)")
        }
    }

    /// Appends `value` in its own type (a `v` as a variant, a tuple as a struct…).
    public func append(_ value: Variant) throws(DBusError) {
        let type = value.typeString
        guard let first = type.first else { return }
        switch first {
        case "a":
            let element = String(type.dropFirst())
            if element.count == 1, let scalar = element.first, "ynqiuxtd".contains(scalar) {
                // In one piece (image data): sd_bus_message_append_array writes the whole array.
                let size = BusMessage.fixedSize[scalar]!
                var count: gsize = 0
                let data = g_variant_get_fixed_array(value.pointer, &count, gsize(size))
                return try check(sd_bus_message_append_array(pointer, code(character: scalar), data, Int(count) * size), "append a\(element)")
            }
            try open("a", element)
            for child in value.children { try append(child) }
            try close()
        case "v":
            let inner = value.unboxed
            try open("v", inner.typeString)
            try append(inner)
            try close()
        case "(":
            try open("r", String(type.dropFirst().dropLast()))
            for child in value.children { try append(child) }
            try close()
        case "{":
            try open("e", String(type.dropFirst().dropLast()))
            for child in value.children { try append(child) }
            try close()
        default:
            try appendBasic(value, first)
        }
    }

    /// Appends each member of a tuple as one argument (a whole body).
    public func appendBody(_ tuple: Variant) throws(DBusError) {
        for child in tuple.children { try append(child) }
    }

    private func appendBasic(_ value: Variant, _ type: Character) throws(DBusError) {
        let p = value.pointer
        switch type {
        case "s", "o", "g":
            try check(sd_bus_message_append_basic(pointer, code(character: type), g_variant_get_string(p, nil)), "append \(type)")
        case "y": try appendScalar(g_variant_get_byte(p), type)
        case "b": try appendScalar(Int32(g_variant_get_boolean(p) != 0 ? 1 : 0), type)
        case "n": try appendScalar(g_variant_get_int16(p), type)
        case "q": try appendScalar(g_variant_get_uint16(p), type)
        case "i": try appendScalar(g_variant_get_int32(p), type)
        case "u": try appendScalar(g_variant_get_uint32(p), type)
        case "x": try appendScalar(g_variant_get_int64(p), type)
        case "t": try appendScalar(g_variant_get_uint64(p), type)
        case "d": try appendScalar(g_variant_get_double(p), type)
        case "h":
            let index = Int(g_variant_get_handle(p))
            guard handleDescriptors.indices.contains(index) else {
                throw DBusError(name: DBusError.invalidArgs, message: "a file descriptor not passed with the message cannot be sent")
            }
            try appendScalar(handleDescriptors[index], type)
        default: throw DBusError(name: DBusError.invalidArgs, message: "unknown type \(type)")
        }
    }

    private func appendScalar<T: BitwiseCopyable>(_ value: T, _ type: Character) throws(DBusError) {
        var copy = value
        try check(sd_bus_message_append_basic(pointer, code(character: type), &copy), "append \(type)")
    }
}
