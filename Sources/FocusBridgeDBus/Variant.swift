import CGLib

/// The one owner of GVariant references in FocusBridge.
///
/// GVariants come in two flavours: floating (fresh from a constructor) and owned. Mixing them up
/// aborts the process with a GLib refcount assertion, so every GVariant the program keeps goes
/// through this type, and no other code calls `g_variant_ref`, `g_variant_unref` or
/// `g_variant_ref_sink`.
public final class Variant: @unchecked Sendable {
    /// The wrapped `GVariant *`, owned (one strong reference) for the lifetime of this object.
    /// Swift may release an object right after its last use, so a caller passing `pointer` to C
    /// must keep the `Variant` itself alive across the call (`withExtendedLifetime`).
    public let pointer: OpaquePointer

    /// Takes over a reference the caller owns (a value returned by a `_get_` or `_finish` call), or
    /// sinks a floating one (fresh from a `g_variant_new_*` constructor).
    public init(owning pointer: OpaquePointer) {
        if g_variant_is_floating(pointer) != 0 {
            g_variant_ref_sink(pointer)
        }
        self.pointer = pointer
    }

    /// Adds a reference to a value someone else owns (for example a method call's parameters).
    public init(borrowing pointer: OpaquePointer) {
        self.pointer = g_variant_ref_sink(pointer)
    }

    deinit { g_variant_unref(pointer) }

    // MARK: Reading

    /// The GVariant type string, such as `s` or `a{sv}`.
    public var typeString: String { String(cString: g_variant_get_type_string(pointer)) }

    public var isString: Bool { typeString == "s" || typeString == "o" || typeString == "g" }

    /// The string of an `s`, `o` or `g` value, else nil.
    public var string: String? {
        guard isString else { return nil }
        return String(cString: g_variant_get_string(pointer, nil))
    }

    /// Any integer type (`y n q i u x t`, and `h`) as Int64, else nil: clients send urgency as
    /// byte, int or uint, so readers accept them all.
    public var integer: Int64? {
        switch typeString {
        case "y": return Int64(g_variant_get_byte(pointer))
        case "n": return Int64(g_variant_get_int16(pointer))
        case "q": return Int64(g_variant_get_uint16(pointer))
        case "i": return Int64(g_variant_get_int32(pointer))
        case "h": return Int64(g_variant_get_handle(pointer))
        case "u": return Int64(g_variant_get_uint32(pointer))
        case "x": return Int64(g_variant_get_int64(pointer))
        case "t":
            let value = g_variant_get_uint64(pointer)
            return value > UInt64(Int64.max) ? Int64.max : Int64(value)
        default: return nil
        }
    }

    public var uint32: UInt32? { typeString == "u" ? g_variant_get_uint32(pointer) : nil }
    public var int32: Int32? { typeString == "i" ? g_variant_get_int32(pointer) : nil }
    public var bool: Bool? { typeString == "b" ? g_variant_get_boolean(pointer) != 0 : nil }
    public var double: Double? { typeString == "d" ? g_variant_get_double(pointer) : nil }

    /// The elements of an `as`, else nil.
    public var strings: [String]? {
        guard typeString == "as" else { return nil }
        return children.compactMap(\.string)
    }

    public var childCount: Int {
        g_variant_is_container(pointer) != 0 ? Int(g_variant_n_children(pointer)) : 0
    }

    public func child(_ index: Int) -> Variant {
        Variant(owning: g_variant_get_child_value(pointer, gsize(index)))
    }

    public var children: [Variant] { (0..<childCount).map(child) }

    /// The value inside a `v`, else the value itself.
    public var unboxed: Variant {
        typeString == "v" ? Variant(owning: g_variant_get_variant(pointer)) : self
    }

    /// The entries of an `a{sv}`, in order, with the `v` left boxed so they forward untouched.
    public var dictionaryEntries: [(key: String, value: Variant)] {
        guard typeString == "a{sv}" else { return [] }
        return children.map { entry in (entry.child(0).string ?? "", entry.child(1)) }
    }

    /// A text form for logs and tests (`g_variant_print` with type annotations).
    public var description: String {
        let text = g_variant_print(pointer, 1)!
        defer { g_free(text) }
        return String(cString: text)
    }

    // MARK: Building

    public static func string(_ value: String) -> Variant { Variant(owning: g_variant_new_string(value)) }
    public static func objectPath(_ value: String) -> Variant { Variant(owning: g_variant_new_object_path(value)) }
    public static func uint32(_ value: UInt32) -> Variant { Variant(owning: g_variant_new_uint32(value)) }
    public static func int32(_ value: Int32) -> Variant { Variant(owning: g_variant_new_int32(value)) }
    public static func int64(_ value: Int64) -> Variant { Variant(owning: g_variant_new_int64(gint64(value))) }
    public static func double(_ value: Double) -> Variant { Variant(owning: g_variant_new_double(value)) }
    public static func byte(_ value: UInt8) -> Variant { Variant(owning: g_variant_new_byte(value)) }
    public static func bool(_ value: Bool) -> Variant { Variant(owning: g_variant_new_boolean(value ? 1 : 0)) }
    public static func boxed(_ value: Variant) -> Variant { Variant(owning: g_variant_new_variant(value.pointer)) }

    /// A tuple of the given values (the shape of every D-Bus message body).
    public static func tuple(_ values: [Variant]) -> Variant {
        var pointers: [OpaquePointer?] = values.map(\.pointer)
        return withExtendedLifetime(values) {
            Variant(owning: g_variant_new_tuple(&pointers, gsize(pointers.count)))
        }
    }

    /// An array whose elements have `elementType` (needed for an empty array).
    public static func array(of elementType: String, _ values: [Variant]) -> Variant {
        let type = g_variant_type_new(elementType)
        defer { g_variant_type_free(type) }
        var pointers: [OpaquePointer?] = values.map(\.pointer)
        return withExtendedLifetime(values) {
            Variant(owning: g_variant_new_array(type, &pointers, gsize(pointers.count)))
        }
    }

    /// An `ay` holding `bytes` (icon pixmaps), copied in one piece.
    public static func byteArray(_ bytes: [UInt8]) -> Variant {
        let type = g_variant_type_new("y")
        defer { g_variant_type_free(type) }
        return bytes.withUnsafeBytes { buffer in
            Variant(owning: g_variant_new_fixed_array(type, buffer.baseAddress, gsize(buffer.count), 1))
        }
    }

    public static func strings(_ values: [String]) -> Variant {
        array(of: "s", values.map(string))
    }

    /// An `a{sv}` from entries whose values are already `v`.
    public static func dictionary(_ entries: [(key: String, value: Variant)]) -> Variant {
        array(of: "{sv}", entries.map { entry in
            let key = Variant.string(entry.key)
            let boxed = entry.value.typeString == "v" ? entry.value : Variant.boxed(entry.value)
            return withExtendedLifetime((key, boxed)) {
                Variant(owning: g_variant_new_dict_entry(key.pointer, boxed.pointer))
            }
        })
    }

    // MARK: Serialised form

    /// The size of the serialised form, without copying it.
    public var byteCount: Int { Int(g_variant_get_size(pointer)) }

    /// The value in GVariant's serialised form (for storing it byte for byte).
    public var bytes: [UInt8] {
        let size = Int(g_variant_get_size(pointer))
        guard size > 0, let data = g_variant_get_data(pointer) else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// A value of `type` from its serialised form; nil when the bytes are not a valid `type`.
    public convenience init?(type: String, bytes: [UInt8]) {
        guard g_variant_type_string_is_valid(type) != 0 else { return nil }
        let variantType = g_variant_type_new(type)
        defer { g_variant_type_free(variantType) }
        let gbytes = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(gbytes) }
        let loaded = Variant(owning: g_variant_new_from_bytes(variantType, gbytes, 0))
        guard g_variant_is_normal_form(loaded.pointer) != 0 else { return nil }
        self.init(borrowing: loaded.pointer)
        withExtendedLifetime(loaded) {}
    }

    /// Parses GVariant text format (`g_variant_parse`), for tests and tools; nil on error.
    public static func parse(_ text: String, type: String? = nil) -> Variant? {
        var error: UnsafeMutablePointer<GError>?
        let variantType = type.map { g_variant_type_new($0) }
        defer { variantType.map { g_variant_type_free($0) } }
        guard let pointer = g_variant_parse(variantType ?? nil, text, nil, nil, &error) else {
            g_error_free(error)
            return nil
        }
        return Variant(owning: pointer)
    }
}
