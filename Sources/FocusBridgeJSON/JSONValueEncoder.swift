/// A `Codable` encoder into `JSONValue`, in place of Foundation's `JSONEncoder` (Core links no
/// Foundation). Integers are written exactly, a `Double` as the shortest text that reads back identically
/// (a NaN or infinity is an error), `nil` as `null`, members in the order they were encoded
/// (a key encoded twice keeps its first place and its last value). One value may be encoded
/// through several keyed containers of the same encoder (a report that flattens another), as
/// Foundation allows. Asking for a container of another kind than the one already used is an
/// error, not a trap.
public struct JSONValueEncoder {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        let context = EncodingContext()
        let encoder = ValueEncoder(context: context, codingPath: [])
        try value.encode(to: encoder)
        if let error = context.error { throw error }
        return encoder.resolved()
    }
}

/// What one encoding shares: the first misuse, reported when it ends.
private final class EncodingContext {
    var error: EncodingError?

    func fail(_ path: [any CodingKey], _ what: String) {
        if error == nil { error = .invalidValue(what, .init(codingPath: path, debugDescription: what)) }
    }
}

/// A value not yet resolved: written, or a container or encoder still being filled.
private enum Slot {
    case value(JSONValue)
    case object(ObjectSlots)
    case array(ArraySlots)
    case encoder(ValueEncoder)

    func resolved() -> JSONValue {
        switch self {
        case .value(let value): return value
        case .object(let object): return object.resolved()
        case .array(let array): return array.resolved()
        case .encoder(let encoder): return encoder.resolved()
        }
    }
}

private final class ObjectSlots {
    var keys: [String] = []
    var slots: [String: Slot] = [:]

    func set(_ key: String, _ slot: Slot) {
        if slots.updateValue(slot, forKey: key) == nil { keys.append(key) }
    }

    func resolved() -> JSONValue { .object(keys.map { JSONMember($0, slots[$0]!.resolved()) }) }
}

private final class ArraySlots {
    var slots: [Slot] = []
    func resolved() -> JSONValue { .array(slots.map { $0.resolved() }) }
}

private final class ValueEncoder: Encoder {
    let context: EncodingContext
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    /// What this encoder's value became (nothing encoded: an empty object, as Foundation writes).
    var slot: Slot?

    init(context: EncodingContext, codingPath: [any CodingKey]) {
        self.context = context
        self.codingPath = codingPath
    }

    func resolved() -> JSONValue { slot?.resolved() ?? .object([]) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: ObjectSlots
        switch slot {
        case .object(let existing)?: object = existing
        case nil: object = ObjectSlots(); slot = .object(object)
        default:
            context.fail(codingPath, "a keyed container asked for after another kind of value")
            object = ObjectSlots()
        }
        return KeyedEncodingContainer(KeyedEncoder<Key>(encoder: self, object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: ArraySlots
        switch slot {
        case .array(let existing)?: array = existing
        case nil: array = ArraySlots(); slot = .array(array)
        default:
            context.fail(codingPath, "an unkeyed container asked for after another kind of value")
            array = ArraySlots()
        }
        return UnkeyedEncoder(encoder: self, array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleEncoder(encoder: self) }

    /// `value` as a slot: the primitives at once, anything else through its own encoder.
    func box<T: Encodable>(_ value: T, at path: [any CodingKey]) throws -> Slot {
        if let primitive = try primitive(value, at: path) { return .value(primitive) }
        let child = ValueEncoder(context: context, codingPath: path)
        try value.encode(to: child)
        return .encoder(child)
    }

    func primitive<T>(_ value: T, at path: [any CodingKey]) throws -> JSONValue? {
        switch value {
        case let text as String: return .string(text)
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .number(String(number))
        case let number as Int64: return .number(String(number))
        case let number as UInt32: return .number(String(number))
        case let number as Double: return try double(number, at: path)
        default: return nil
        }
    }

    func double(_ value: Double, at path: [any CodingKey]) throws -> JSONValue {
        guard let text = JSONWriter.number(value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "\(value) is not a JSON number"))
        }
        return .number(text)
    }

    func float(_ value: Float, at path: [any CodingKey]) throws -> JSONValue {
        guard let text = JSONWriter.number(value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: path, debugDescription: "\(value) is not a JSON number"))
        }
        return .number(text)
    }
}

/// A key of an array position or of `superEncoder()`.
private struct IndexKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(_ index: Int) { stringValue = "Index \(index)"; intValue = index }
    init(super: Void) { stringValue = "super"; intValue = nil }
    init?(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init?(intValue: Int) { self.init(intValue) }
}

private struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    let object: ObjectSlots
    let codingPath: [any CodingKey]

    private func set(_ key: Key, _ value: JSONValue) { object.set(key.stringValue, .value(value)) }

    mutating func encodeNil(forKey key: Key) throws { set(key, .null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { set(key, .bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { set(key, .string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws { set(key, try encoder.double(value, at: codingPath + [key])) }
    mutating func encode(_ value: Float, forKey key: Key) throws { set(key, try encoder.float(value, at: codingPath + [key])) }
    mutating func encode(_ value: Int, forKey key: Key) throws { set(key, .number(String(value))) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { set(key, .number(String(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { set(key, .number(String(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { set(key, .number(String(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { set(key, .number(String(value))) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { set(key, .number(String(value))) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { set(key, .number(String(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { set(key, .number(String(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { set(key, .number(String(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { set(key, .number(String(value))) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object.set(key.stringValue, try encoder.box(value, at: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectSlots()
        object.set(key.stringValue, .object(nested))
        return KeyedEncodingContainer(KeyedEncoder<NestedKey>(encoder: encoder, object: nested, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ArraySlots()
        object.set(key.stringValue, .array(nested))
        return UnkeyedEncoder(encoder: encoder, array: nested, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: IndexKey(super: ())) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key) }

    private func superEncoder(named key: any CodingKey) -> any Encoder {
        let child = ValueEncoder(context: encoder.context, codingPath: codingPath + [key])
        object.set(key.stringValue, .encoder(child))
        return child
    }
}

private struct UnkeyedEncoder: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    let array: ArraySlots
    let codingPath: [any CodingKey]
    var count: Int { array.slots.count }

    private var path: [any CodingKey] { codingPath + [IndexKey(count)] }
    private func append(_ value: JSONValue) { array.slots.append(.value(value)) }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(try encoder.double(value, at: path)) }
    mutating func encode(_ value: Float) throws { append(try encoder.float(value, at: path)) }
    mutating func encode(_ value: Int) throws { append(.number(String(value))) }
    mutating func encode(_ value: Int8) throws { append(.number(String(value))) }
    mutating func encode(_ value: Int16) throws { append(.number(String(value))) }
    mutating func encode(_ value: Int32) throws { append(.number(String(value))) }
    mutating func encode(_ value: Int64) throws { append(.number(String(value))) }
    mutating func encode(_ value: UInt) throws { append(.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { append(.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { append(.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { append(.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { append(.number(String(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        array.slots.append(try encoder.box(value, at: path))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectSlots()
        let nestedPath = path
        array.slots.append(.object(nested))
        return KeyedEncodingContainer(KeyedEncoder<NestedKey>(encoder: encoder, object: nested, codingPath: nestedPath))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArraySlots()
        let nestedPath = path
        array.slots.append(.array(nested))
        return UnkeyedEncoder(encoder: encoder, array: nested, codingPath: nestedPath)
    }

    mutating func superEncoder() -> any Encoder {
        let child = ValueEncoder(context: encoder.context, codingPath: path)
        array.slots.append(.encoder(child))
        return child
    }
}

private struct SingleEncoder: SingleValueEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ value: JSONValue) {
        if encoder.slot != nil { encoder.context.fail(codingPath, "a single value encoded twice or after a container") }
        encoder.slot = .value(value)
    }

    mutating func encodeNil() throws { set(.null) }
    mutating func encode(_ value: Bool) throws { set(.bool(value)) }
    mutating func encode(_ value: String) throws { set(.string(value)) }
    mutating func encode(_ value: Double) throws { set(try encoder.double(value, at: codingPath)) }
    mutating func encode(_ value: Float) throws { set(try encoder.float(value, at: codingPath)) }
    mutating func encode(_ value: Int) throws { set(.number(String(value))) }
    mutating func encode(_ value: Int8) throws { set(.number(String(value))) }
    mutating func encode(_ value: Int16) throws { set(.number(String(value))) }
    mutating func encode(_ value: Int32) throws { set(.number(String(value))) }
    mutating func encode(_ value: Int64) throws { set(.number(String(value))) }
    mutating func encode(_ value: UInt) throws { set(.number(String(value))) }
    mutating func encode(_ value: UInt8) throws { set(.number(String(value))) }
    mutating func encode(_ value: UInt16) throws { set(.number(String(value))) }
    mutating func encode(_ value: UInt32) throws { set(.number(String(value))) }
    mutating func encode(_ value: UInt64) throws { set(.number(String(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if encoder.slot != nil { encoder.context.fail(codingPath, "a single value encoded twice or after a container") }
        encoder.slot = try encoder.box(value, at: codingPath)
    }
}
