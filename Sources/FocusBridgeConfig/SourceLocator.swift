/// Finds where a table or key stands in the TOML text.
///
/// TOMLKit reports positions for syntax errors only; its tables carry none, so errors about a
/// well-formed key (unknown, wrong type, bad value) look the key up in the text by its full
/// path — through `[table]` headers, `[[array]]` headers, dotted keys and inline tables.
struct SourceLocator {
    private struct Line {
        let number: Int
        let text: Substring
        let indent: Int
        /// The header's table path, for `[a."b.c"]` and `[[a.b]]` lines.
        let header: [String]?
        /// The key path of a `a.b = value` line.
        let key: [String]?
    }

    private let lines: [Line]

    init(text: String) {
        lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated().map { index, raw in
            let content = raw.drop { $0 == " " || $0 == "\t" }
            let indent = raw.count - content.count
            if content.hasPrefix("[") {
                let inner = content.drop { $0 == "[" }
                return Line(number: index + 1, text: raw, indent: indent, header: SourceLocator.path(inner, until: "]"), key: nil)
            }
            guard !content.hasPrefix("#"), content.contains("=") else {
                return Line(number: index + 1, text: raw, indent: indent, header: nil, key: nil)
            }
            return Line(number: index + 1, text: raw, indent: indent, header: nil, key: SourceLocator.path(content, until: "="))
        }
    }

    /// The 1-based line and column of `key` in the `occurrence`-th table with path `table` (array
    /// tables repeat), or of the table itself when `key` is nil. Where the exact path is not
    /// written out (an inline table, a value that is a table), the closest line that leads to
    /// it; (1, 1) when nothing does.
    func position(table: [String], occurrence: Int = 0, key: String? = nil) -> (line: Int, column: Int) {
        let target = table + (key.map { [$0] } ?? [])
        var current: [String] = []
        var seen = -1
        var best: (line: Line, depth: Int)?
        for line in lines {
            if let header = line.header {
                current = header
                if header == table { seen += 1 }
                if header == target && (key != nil || seen == occurrence) { return (line.number, line.indent + 1) }
                continue
            }
            guard let keyPath = line.key else { continue }
            // Inside an array table, only its `occurrence`-th entry counts.
            if current == table && seen != occurrence && key != nil { continue }
            let absolute = current + keyPath
            if absolute == target { return (line.number, line.indent + 1) }
            if absolute.starts(with: target) {
                // A dotted key below the target (`level.deep = …` when `level` is wrong).
                if best == nil || best!.depth < target.count { best = (line, target.count) }
            } else if target.starts(with: absolute), absolute.count > (best?.depth ?? 0) {
                // An inline table holding the target (`"y" = { level = … }`).
                best = (line, absolute.count)
            }
        }
        guard let best else { return (1, 1) }
        if best.depth < target.count, let key, let range = best.line.text.range(of: key) {
            return (best.line.number, best.line.text.distance(from: best.line.text.startIndex, to: range.lowerBound) + 1)
        }
        return (best.line.number, best.line.indent + 1)
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
