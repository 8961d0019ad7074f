/// A strict RFC 8259 parser: one JSON text (any value, surrounded by whitespace only) into a
/// `JSONValue`. Its input is untrusted (a shared folder's files, sway's tree, the control
/// interface): anything that is not JSON, a text past `maxBytes`, nesting past `maxDepth`, a
/// number too large for a `Double`, invalid UTF-8 or a lone surrogate escape is an error with
/// its byte offset, never a trap. Recursion is bounded by `maxDepth`.
public struct JSONParser {
    public struct Limits: Sendable {
        public var maxBytes: Int
        public var maxDepth: Int

        public init(maxBytes: Int, maxDepth: Int) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
        }

        /// 64 MiB, 512 levels (as Foundation's parser).
        public static let standard = Limits(maxBytes: 64 << 20, maxDepth: 512)
    }

    public struct Invalid: Error, Equatable, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "not JSON at byte \(offset): \(reason)" }
    }

    public static func parse(_ text: String, limits: Limits = .standard) throws(Invalid) -> JSONValue {
        try parse(Array(text.utf8), limits: limits)
    }

    public static func parse(_ bytes: [UInt8], limits: Limits = .standard) throws(Invalid) -> JSONValue {
        guard bytes.count <= limits.maxBytes else {
            throw Invalid(offset: limits.maxBytes, reason: "longer than \(limits.maxBytes) bytes")
        }
        var parser = JSONParser(bytes: bytes, maxDepth: limits.maxDepth)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.invalid("text after the value") }
        return value
    }

    private let bytes: [UInt8]
    private let maxDepth: Int
    private var index = 0

    private init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private func invalid(_ reason: String) -> Invalid { Invalid(offset: index, reason: reason) }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSONValue) throws(Invalid) -> JSONValue {
        let count = word.utf8CodeUnitCount
        guard count <= bytes.count - index else { throw invalid("cut short") }
        let matches = word.withUTF8Buffer { $0.elementsEqual(bytes[index..<index + count]) }
        guard matches else { throw invalid("not a value") }
        index += count
        return value
    }

    private mutating func value(depth: Int) throws(Invalid) -> JSONValue {
        guard let byte = peek else { throw invalid("cut short: a value was expected") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw invalid("not a value")
        }
    }

    private mutating func object(depth: Int) throws(Invalid) -> JSONValue {
        guard depth <= maxDepth else { throw invalid("nested deeper than \(maxDepth)") }
        index += 1
        var members: [JSONMember] = []
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw invalid("a member name was expected") }
            let key = try string()
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw invalid("\":\" was expected") }
            index += 1
            skipWhitespace()
            members.append(JSONMember(key, try value(depth: depth)))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw invalid("\",\" or \"}\" was expected")
            }
        }
    }

    private mutating func array(depth: Int) throws(Invalid) -> JSONValue {
        guard depth <= maxDepth else { throw invalid("nested deeper than \(maxDepth)") }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(items)
            default: throw invalid("\",\" or \"]\" was expected")
            }
        }
    }

    private mutating func digits() -> Int {
        let start = index
        while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, finite as a `Double`.
    private mutating func number() throws(Invalid) -> String {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        if peek == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw invalid("a digit was expected") }
        }
        var plain = true
        if peek == UInt8(ascii: ".") {
            index += 1
            plain = false
            guard digits() > 0 else { throw invalid("a digit was expected after \".\"") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            plain = false
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw invalid("a digit was expected in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        // A number beyond a Double's range is refused (as Foundation refuses it); an integer
        // beyond Int64 is kept as text: it is a Double's business, or refused by the decoder.
        if !plain || text.utf8.count > 18, let value = Double(text), !value.isFinite {
            index = start
            throw invalid("a number too large")
        }
        return text
    }

    private mutating func hex4() throws(Invalid) -> UInt32 {
        guard bytes.count - index >= 4 else { throw invalid("cut short in a \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw invalid("a hex digit was expected")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func string() throws(Invalid) -> String {
        let start = index
        index += 1
        var utf8: [UInt8] = []
        var plainFrom = index
        while true {
            guard index < bytes.count else {
                index = start
                throw invalid("a string that does not end")
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                utf8 += bytes[plainFrom..<index]
                index += 1
                break
            }
            guard byte >= 0x20 else { throw invalid("a control character in a string") }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            utf8 += bytes[plainFrom..<index]
            index += 1
            guard let escape = peek else { throw invalid("cut short in an escape") }
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw invalid("a lone high surrogate")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw invalid("a high surrogate without its low one") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw invalid("a lone low surrogate")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw invalid("not a Unicode scalar") }
                utf8 += Array(String(Character(unicode)).utf8)
            default:
                throw invalid("an unknown escape")
            }
            plainFrom = index
        }
        guard let text = String(validating: utf8, as: UTF8.self) else {
            index = start
            throw invalid("a string that is not UTF-8")
        }
        return text
    }
}
