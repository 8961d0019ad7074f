/// A JSON value as Core reads and writes it (RFC 8259): our own instead of Foundation's
/// `JSONSerialization` and `JSONEncoder`, so that Core links no Foundation. `JSONParser` makes one from bytes,
/// `JSONWriter` writes one, `JSONValueEncoder`/`JSONValueDecoder` turn `Codable` values into one
/// and back.
///
/// A number keeps the text it was read or written as, so that integers stay exact (an `Int64`
/// beyond 2^53 is not rounded through a `Double`) and a `Double` reads back identically. An
/// object keeps its members in order; a name given twice is read as its last value, as
/// Foundation reads it.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number's text, valid JSON number syntax.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The value of member `key` of an object (its last, when given twice); nil otherwise.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// A number without a fraction or exponent that fits an `Int`.
    public var intValue: Int? {
        if case .number(let text) = self { return Int(text) }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}

/// One name and value of a JSON object.
public struct JSONMember: Equatable, Sendable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}
