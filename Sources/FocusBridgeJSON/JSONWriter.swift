/// Writes a `JSONValue` as compact JSON text, as Foundation's `JSONEncoder` writes FocusBridge's
/// reports (`.withoutEscapingSlashes`): `"` `\` and control characters escaped, everything else
/// as UTF-8; with `sortedKeys`, object members in the byte order of their names (Foundation's
/// `.sortedKeys`), else in the order they were given.
public enum JSONWriter {
    public static func write(_ value: JSONValue, sortedKeys: Bool = false) -> String {
        var out: [UInt8] = []
        write(value, sortedKeys: sortedKeys, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public static func write(_ value: JSONValue, sortedKeys: Bool, to out: inout [UInt8]) {
        switch value {
        case .null: out += "null".utf8
        case .bool(let flag): out += (flag ? "true" : "false").utf8
        case .number(let text): out += text.utf8
        case .string(let text): string(text, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (position, item) in items.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                write(item, sortedKeys: sortedKeys, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            let ordered = sortedKeys ? members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } : members
            for (position, member) in ordered.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                string(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, sortedKeys: sortedKeys, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `text` as a JSON string literal.
    public static func string(_ text: String) -> String {
        var out: [UInt8] = []
        string(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func string(_ text: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += "\\\"".utf8
            case UInt8(ascii: "\\"): out += "\\\\".utf8
            case 0x0A: out += "\\n".utf8
            case 0x0D: out += "\\r".utf8
            case 0x09: out += "\\t".utf8
            case 0x08: out += "\\b".utf8
            case 0x0C: out += "\\f".utf8
            case 0..<0x20: out += "\\u00".utf8; out.append(hex[Int(byte >> 4)]); out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A `Double`'s shortest text that reads back as the same `Double` (`1`, `0.1`, `1e+16`),
    /// as Foundation writes it; nil when not finite (JSON has no NaN or infinity).
    public static func number(_ value: Double) -> String? {
        guard value.isFinite else { return nil }
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    public static func number(_ value: Float) -> String? {
        guard value.isFinite else { return nil }
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }
}
