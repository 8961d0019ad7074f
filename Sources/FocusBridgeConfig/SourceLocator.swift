/// Finds where a table or key stands in the TOML text.
///
/// TOMLKit reports positions for syntax errors only; its tables carry none, so errors about a
/// well-formed key (unknown, wrong type, bad value) look the key up in the text by its table
/// path and name.
struct SourceLocator {
    private struct Line {
        let number: Int
        let indent: Int
        /// The header's table path, for `[a."b.c"]` and `[[a.b]]` lines.
        let header: [String]?
        /// The key of a `key = value` line.
        let key: String?
    }

    private let lines: [Line]

    init(text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, raw in
            let content = raw.drop { $0 == " " || $0 == "\t" }
            let indent = raw.count - content.count
            if content.hasPrefix("[") {
                let inner = content.drop { $0 == "[" }
                return Line(number: index + 1, indent: indent, header: SourceLocator.path(inner, until: "]"), key: nil)
            }
            guard !content.hasPrefix("#"), content.contains("=") else {
                return Line(number: index + 1, indent: indent, header: nil, key: nil)
            }
            let key = SourceLocator.path(content, until: "=")
            return Line(number: index + 1, indent: indent, header: nil, key: key.count == 1 ? key[0] : key.joined(separator: "."))
        }
    }

    /// The 1-based line and column of `key` in the `occurrence`-th table with this path (array
    /// tables repeat), or of the table's header when `key` is nil; (1, 1) when not found.
    func position(table: [String], occurrence: Int = 0, key: String? = nil) -> (line: Int, column: Int) {
        var current: [String] = []
        var seen = -1
        for line in lines {
            if let header = line.header {
                current = header
                if header == table { seen += 1 }
                if key == nil && header == table && seen == occurrence { return (line.number, line.indent + 1) }
                continue
            }
            if let key, current == table, seen == occurrence, line.key == key { return (line.number, line.indent + 1) }
        }
        // A key may also be written dotted under a parent table (`focus.work.apps = …`).
        if let key, !table.isEmpty {
            let dotted = table.dropFirst().joined(separator: ".") + "." + key
            if let line = lines.first(where: { $0.key == dotted }) { return (line.number, line.indent + 1) }
        }
        return (1, 1)
    }

    /// Splits `a."b.c".d` into its parts, stopping at `terminator` outside quotes.
    private static func path(_ text: Substring, until terminator: Character) -> [String] {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "." {
                parts.append(current.trimmingSpaces())
                current = ""
            } else if character == terminator {
                break
            } else {
                current.append(character)
            }
        }
        parts.append(current.trimmingSpaces())
        return parts
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
