/// What `VariantConnection.export` needs from an interface's introspection XML: each method's
/// in-signature (to refuse a call with the wrong arguments, as D-Bus clients expect), each property's type
/// and access, and the interface's own XML (comments left out) for `Introspect`.
///
/// A reader for the introspection format only (elements, attributes in single or double quotes,
/// comments, the DOCTYPE); the XML is FocusBridge's own (dbus/*.xml, embedded). It works on the
/// UTF-8 bytes (every character it looks for is ASCII): no Unicode machinery, so reading the XML
/// touches little code (less of the binary resident at idle). It is read at the first call, not at export.
struct InterfaceDescription {
    let name: String
    /// Method name → the types of its in-arguments, concatenated (`ss`, `` for none).
    private(set) var methods: [String: String] = [:]
    /// Property name → (type, readable, writable).
    private(set) var properties: [String: (type: String, readable: Bool, writable: Bool)] = [:]
    /// `<interface name="…">…</interface>` as written, without comments.
    private(set) var xml = ""

    private static let lt = UInt8(ascii: "<"), gt = UInt8(ascii: ">"), slash = UInt8(ascii: "/")
    private static let equals = UInt8(ascii: "="), quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'")
    private static let ampersand = UInt8(ascii: "&")

    /// An interface with nothing in it (its XML was missing).
    init(empty name: String) { self.name = name }

    /// Reads the interface `name` from `xml` (a `<node>` holding it); nil when it is not there.
    init?(xml text: String, interface name: String) {
        self.name = name
        let bytes = Self.withoutComments(Array(text.utf8))
        var inside = false
        var method: String?
        var methodArguments = ""
        var start = 0
        var index = 0
        while let open = Self.find(Self.lt, in: bytes, from: index) {
            guard let close = Self.find(Self.gt, in: bytes, from: open) else { break }
            index = close + 1
            var first = open + 1
            let isEnd = first < close && bytes[first] == Self.slash
            if isEnd { first += 1 }
            let selfClosing = close > first && bytes[close - 1] == Self.slash
            var nameEnd = first
            while nameEnd < close, !Self.isSpace(bytes[nameEnd]), bytes[nameEnd] != Self.slash { nameEnd += 1 }
            let element = String(decoding: bytes[first..<nameEnd], as: UTF8.self)
            let attributes = Self.attributes(bytes[nameEnd..<(selfClosing ? close - 1 : close)])
            if !inside {
                if !isEnd, element == "interface", attributes["name"] == name {
                    inside = true
                    start = open
                }
                continue
            }
            switch (element, isEnd) {
            case ("interface", true):
                xml = String(decoding: bytes[start..<index], as: UTF8.self)
                return
            case ("method", false):
                method = attributes["name"]
                methodArguments = ""
                if selfClosing, let done = method {
                    methods[done] = ""
                    method = nil
                }
            case ("method", true):
                if let done = method { methods[done] = methodArguments }
                method = nil
            case ("arg", false):
                if method != nil, (attributes["direction"] ?? "in") == "in" { methodArguments += attributes["type"] ?? "" }
            case ("property", false):
                if let property = attributes["name"], let type = attributes["type"] {
                    let access = attributes["access"] ?? ""
                    properties[property] = (type, access == "read" || access == "readwrite",
                                            access == "write" || access == "readwrite")
                }
            default:
                break
            }
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private static func find(_ byte: UInt8, in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == byte { return index }
            index += 1
        }
        return nil
    }

    private static func starts(_ bytes: [UInt8], at index: Int, with prefix: [UInt8]) -> Bool {
        guard index + prefix.count <= bytes.count else { return false }
        for offset in 0..<prefix.count where bytes[index + offset] != prefix[offset] { return false }
        return true
    }

    private static func withoutComments(_ bytes: [UInt8]) -> [UInt8] {
        let open = Array("<!--".utf8), close = Array("-->".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if starts(bytes, at: index, with: open) {
                index += open.count
                while index < bytes.count && !starts(bytes, at: index, with: close) { index += 1 }
                index += close.count
                continue
            }
            result.append(bytes[index])
            index += 1
        }
        return result
    }

    private static func attributes(_ tag: ArraySlice<UInt8>) -> [String: String] {
        var result: [String: String] = [:]
        var index = tag.startIndex
        while true {
            while index < tag.endIndex, isSpace(tag[index]) { index += 1 }
            let keyStart = index
            while index < tag.endIndex, tag[index] != equals, !isSpace(tag[index]) { index += 1 }
            let key = String(decoding: tag[keyStart..<index], as: UTF8.self)
            while index < tag.endIndex, isSpace(tag[index]) { index += 1 }
            guard index < tag.endIndex, tag[index] == equals else { return result }
            index += 1
            while index < tag.endIndex, isSpace(tag[index]) { index += 1 }
            guard index < tag.endIndex, tag[index] == quote || tag[index] == apostrophe else { return result }
            let delimiter = tag[index]
            index += 1
            let valueStart = index
            while index < tag.endIndex, tag[index] != delimiter { index += 1 }
            guard index < tag.endIndex else { return result }
            result[key] = unescaped(tag[valueStart..<index])
            index += 1
        }
    }

    private static func unescaped(_ bytes: ArraySlice<UInt8>) -> String {
        guard bytes.contains(ampersand) else { return String(decoding: bytes, as: UTF8.self) }
        let entities: [([UInt8], UInt8)] = [(Array("&lt;".utf8), UInt8(ascii: "<")), (Array("&gt;".utf8), UInt8(ascii: ">")),
                                            (Array("&quot;".utf8), quote), (Array("&apos;".utf8), apostrophe),
                                            (Array("&amp;".utf8), ampersand)]
        let array = Array(bytes)
        var result: [UInt8] = []
        var index = 0
        outer: while index < array.count {
            if array[index] == ampersand {
                for (entity, byte) in entities where starts(array, at: index, with: entity) {
                    result.append(byte)
                    index += entity.count
                    continue outer
                }
            }
            result.append(array[index])
            index += 1
        }
        return String(decoding: result, as: UTF8.self)
    }
}
