/// What `BusConnection.export` needs from an interface's introspection XML: each method's
/// in-signature (to refuse a call with the wrong arguments, as GDBus did), each property's type
/// and access, and the interface's own XML (comments left out) for `Introspect`.
///
/// A reader for the introspection format only (elements, attributes in single or double quotes,
/// comments, the DOCTYPE); the XML is FocusBridge's own (dbus/*.xml, embedded).
struct InterfaceDescription {
    let name: String
    /// Method name → the types of its in-arguments, concatenated (`ss`, `` for none).
    private(set) var methods: [String: String] = [:]
    /// Property name → (type, readable, writable).
    private(set) var properties: [String: (type: String, readable: Bool, writable: Bool)] = [:]
    /// `<interface name="…">…</interface>` as written, without comments.
    private(set) var xml = ""

    /// Reads the interface `name` from `xml` (a `<node>` holding it); nil when it is not there.
    init?(xml text: String, interface name: String) {
        self.name = name
        let cleaned = Self.withoutComments(text)
        var inside = false
        var method: String?
        var methodArguments = ""
        var start: String.Index?
        var index = cleaned.startIndex
        while let open = cleaned[index...].firstIndex(of: "<") {
            guard let close = cleaned[open...].firstIndex(of: ">") else { break }
            let tag = cleaned[cleaned.index(after: open)..<close]
            index = cleaned.index(after: close)
            let isEnd = tag.hasPrefix("/")
            let body = isEnd ? tag.dropFirst() : tag
            let element = String(body.prefix { !$0.isWhitespace && $0 != "/" })
            let attributes = Self.attributes(body)
            if !inside {
                if !isEnd, element == "interface", attributes["name"] == name {
                    inside = true
                    start = open
                }
                continue
            }
            switch (element, isEnd) {
            case ("interface", true):
                if let start { xml = String(cleaned[start..<index]) }
                return
            case ("method", false):
                method = attributes["name"]
                methodArguments = ""
                if body.hasSuffix("/"), let done = method {
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
                    properties[property] = (type, access.contains("read"), access.contains("write"))
                }
            default:
                break
            }
        }
        return nil
    }

    private static func withoutComments(_ text: String) -> String {
        var result = ""
        var rest = text[...]
        while let open = rest.firstRange(of: "<!--") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstRange(of: "-->") else { return result }
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    private static func attributes(_ tag: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = tag.drop { !$0.isWhitespace }
        while true {
            rest = rest.drop { $0.isWhitespace || $0 == "/" }
            guard let equals = rest.firstIndex(of: "=") else { return result }
            let key = rest[..<equals].trimmingSpaces
            var value = rest[rest.index(after: equals)...].drop { $0.isWhitespace }
            guard let quote = value.first, quote == "\"" || quote == "'" else { return result }
            value = value.dropFirst()
            guard let end = value.firstIndex(of: quote) else { return result }
            result[key] = Self.unescaped(value[..<end])
            rest = value[value.index(after: end)...]
        }
    }

    private static func unescaped(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        return String(text).replacingEntities
    }
}

private extension Substring {
    var trimmingSpaces: String { String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()) }
}

private extension String {
    var replacingEntities: String {
        var text = self
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            text = text.split(separator: entity, omittingEmptySubsequences: false).joined(separator: character)
        }
        return text
    }
}
