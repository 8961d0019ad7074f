/// Finds where a key stands in the TOML text.
///
/// TOMLKit reports positions for syntax errors only; its tables carry none, so errors about a
/// well-formed key (unknown, wrong type) look the key up in the text by its table and name.
struct SourceLocator {
    private let lines: [Substring]

    init(text: String) { lines = text.split(separator: "\n", omittingEmptySubsequences: false) }

    /// The 1-based line and column of `key` inside table `table` (dotted, e.g. `downstream`),
    /// or of the table header when `key` is nil; (1, 1) when it cannot be found.
    func position(table: String, key: String? = nil) -> (line: Int, column: Int) {
        var current = ""
        for (index, raw) in lines.enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            let indent = raw.count - line.count
            if line.hasPrefix("[") {
                let name = line.drop { $0 == "[" }.prefix { $0 != "]" }
                current = name.split(separator: ".").map { Self.unquote($0) }.joined(separator: ".")
                if key == nil && current == table { return (index + 1, indent + 1) }
                continue
            }
            guard let key, current == table else { continue }
            let name = line.prefix { $0 != "=" }.trimmingSpaces()
            if Self.unquote(name) == key { return (index + 1, indent + 1) }
        }
        return (1, 1)
    }

    private static func unquote<S: StringProtocol>(_ text: S) -> String {
        var value = String(text).trimmingSpaces()
        if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
            value = String(value.dropFirst().dropLast())
        }
        return value
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
