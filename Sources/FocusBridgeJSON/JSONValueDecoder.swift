/// A `Codable` decoder from `JSONValue`, in place of Foundation's `JSONDecoder` (Core links no
/// Foundation). As Foundation reads: a missing key or `null` is nil for an optional, integers must be exact and
/// in range (`1.0` and `1e2` are whole numbers, `1.5` is not), a number for a `Double` must be
/// finite, a key given twice is its last value. Every mismatch is a `DecodingError`.
public struct JSONValueDecoder {
    public init() {}

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: []))
    }
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw mismatch([String: JSONValue].self, value, codingPath)
        }
        return KeyedDecodingContainer(KeyedDecoder<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return UnkeyedDecoder(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleDecoder(value: value, codingPath: codingPath) }
}

private func describe(_ value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number(let text): return "the number \(text.prefix(40))"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    if value == .null {
        return .valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(type), found null"))
    }
    return .typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(describe(value))"))
}

/// The primitives, read from one value.
private enum Read {
    static func bool(_ value: JSONValue, _ path: [any CodingKey]) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self, value, path) }
        return flag
    }

    static func string(_ value: JSONValue, _ path: [any CodingKey]) throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self, value, path) }
        return text
    }

    static func double(_ value: JSONValue, _ path: [any CodingKey]) throws -> Double {
        guard case .number(let text) = value else { throw mismatch(Double.self, value, path) }
        guard let number = Double(text), number.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(text.prefix(40)) does not fit a Double"))
        }
        return number
    }

    static func float(_ value: JSONValue, _ path: [any CodingKey]) throws -> Float {
        let number = try double(value, path)
        let float = Float(number)
        guard float.isFinite else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(number) does not fit a Float"))
        }
        return float
    }

    /// An integer: its digits exactly, or a whole number written with a fraction or exponent.
    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T {
        guard case .number(let text) = value else { throw mismatch(T.self, value, path) }
        if let exact = T(text) { return exact }
        if text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
           let number = Double(text), let whole = T(exactly: number) {
            return whole
        }
        throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(text.prefix(40)) does not fit \(T.self)"))
    }

    static func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T {
        switch type {
        case is String.Type: return try string(value, path) as! T
        case is Bool.Type: return try bool(value, path) as! T
        case is Int.Type: return try integer(Int.self, value, path) as! T
        case is Double.Type: return try double(value, path) as! T
        default: return try T(from: ValueDecoder(value: value, codingPath: path))
        }
    }
}

private struct AnyKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(_ index: Int) { stringValue = "Index \(index)"; intValue = index }
    init?(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init?(intValue: Int) { self.init(intValue) }
}

private struct KeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [JSONMember]
    let codingPath: [any CodingKey]

    var allKeys: [Key] {
        var seen = Set<String>()
        return members.reversed().filter { seen.insert($0.key).inserted }.reversed().compactMap { Key(stringValue: $0.key) }
    }

    func contains(_ key: Key) -> Bool { members.contains { $0.key == key.stringValue } }

    private func value(_ key: Key) throws -> JSONValue {
        guard let member = members.last(where: { $0.key == key.stringValue }) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no \"\(key.stringValue)\""))
        }
        return member.value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try value(key) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try Read.bool(try value(key), codingPath + [key]) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try Read.string(try value(key), codingPath + [key]) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try Read.double(try value(key), codingPath + [key]) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try Read.float(try value(key), codingPath + [key]) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try Read.integer(type, try value(key), codingPath + [key]) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try Read.integer(type, try value(key), codingPath + [key]) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try Read.integer(type, try value(key), codingPath + [key]) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try Read.integer(type, try value(key), codingPath + [key]) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try Read.integer(type, try value(key), codingPath + [key]) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try Read.integer(type, try value(key), codingPath + [key]) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try Read.integer(type, try value(key), codingPath + [key]) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try Read.integer(type, try value(key), codingPath + [key]) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try Read.integer(type, try value(key), codingPath + [key]) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try Read.integer(type, try value(key), codingPath + [key]) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try Read.decode(type, try value(key), codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try ValueDecoder(value: try value(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try ValueDecoder(value: try value(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = AnyKey(stringValue: "super")!
        let value = members.last { $0.key == "super" }?.value ?? .null
        return ValueDecoder(value: value, codingPath: codingPath + [key])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: members.last { $0.key == key.stringValue }?.value ?? .null, codingPath: codingPath + [key])
    }
}

private struct UnkeyedDecoder: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private var path: [any CodingKey] { codingPath + [AnyKey(currentIndex)] }

    private mutating func next(_ type: Any.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "the array has ended"))
        }
        return items[currentIndex]
    }

    private mutating func read<T>(_ type: T.Type, _ body: (JSONValue, [any CodingKey]) throws -> T) throws -> T {
        let value = try next(type)
        let result = try body(value, path)
        currentIndex += 1
        return result
    }

    mutating func decodeNil() throws -> Bool {
        guard try next(Never.self) == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try read(type, Read.bool) }
    mutating func decode(_ type: String.Type) throws -> String { try read(type, Read.string) }
    mutating func decode(_ type: Double.Type) throws -> Double { try read(type, Read.double) }
    mutating func decode(_ type: Float.Type) throws -> Float { try read(type, Read.float) }
    mutating func decode(_ type: Int.Type) throws -> Int { try read(type) { try Read.integer(type, $0, $1) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try read(type) { try Read.integer(type, $0, $1) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try read(type) { try Read.integer(type, $0, $1) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try read(type) { try Read.integer(type, $0, $1) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try read(type) { try Read.integer(type, $0, $1) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try read(type) { try Read.integer(type, $0, $1) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try read(type) { try Read.integer(type, $0, $1) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try read(type) { try Read.integer(type, $0, $1) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try read(type) { try Read.integer(type, $0, $1) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try read(type) { try Read.integer(type, $0, $1) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try read(type) { try Read.decode(type, $0, $1) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try read(KeyedDecodingContainer<NestedKey>.self) { try ValueDecoder(value: $0, codingPath: $1).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try read((any UnkeyedDecodingContainer).self) { try ValueDecoder(value: $0, codingPath: $1).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try read((any Decoder).self) { ValueDecoder(value: $0, codingPath: $1) }
    }
}

private struct SingleDecoder: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try Read.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try Read.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try Read.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try Read.float(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try Read.integer(type, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Read.integer(type, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Read.integer(type, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Read.integer(type, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Read.integer(type, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try Read.integer(type, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Read.integer(type, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Read.integer(type, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Read.integer(type, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Read.integer(type, value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try Read.decode(type, value, codingPath) }
}
