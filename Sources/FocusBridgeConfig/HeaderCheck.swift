/// Refuses a table header that names no table (`[`, `[*]`, `[Ärger]`) before the TOML parser
/// sees it: toml++ 3.4 (inside TOMLKit 0.6) stops the process with an assertion on such a header
/// (upstream: marzer/tomlplusplus#301), and a half-typed header in a file being saved must not
/// take the bridge down on reload. Found by the config fuzzer (Fuzz/, findings 1 and 7).
///
/// A header is a `[` that starts a line outside any string, comment or multi-line array, so the
/// check reads the text as TOML's lexer does: the four kinds of string (with escapes in the basic
/// ones), comments, and array brackets. Whatever it gets wrong beyond a header toml++ reports as a
/// syntax error; it stops at the first error, so the lines after one do not matter.
enum HeaderCheck {
    static func check(_ text: String, path: String) throws(ConfigError) {
        var scanner = Scanner(bytes: Array(text.utf8))
        while let header = scanner.nextHeader() {
            let bytes = scanner.bytes
            let brackets = bytes[header...].prefix { $0 == UInt8(ascii: "[") }.count
            let nameStart = bytes[(header + brackets)...].firstIndex { $0 != .space && $0 != .tab } ?? bytes.count
            let first = nameStart < bytes.count ? bytes[nameStart] : nil
            if brackets <= 2, let first, first == .quote || first == .apostrophe || Self.isBareKeyByte(first) {
                scanner.skipLine()
                continue
            }
            let lineStart = bytes[..<header].lastIndex(of: .newline).map { $0 + 1 } ?? 0
            let column = String(decoding: bytes[lineStart..<nameStart], as: UTF8.self).count + 1
            throw ConfigError(path: path, line: scanner.line, column: column,
                              message: "a table header needs a name made of A-Z a-z 0-9 _ - or a quoted string")
        }
    }

    static func isBareKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"): true
        default: false
        }
    }

    /// Walks the text byte by byte (every byte that matters is ASCII) and stops at each header.
    struct Scanner {
        let bytes: [UInt8]
        var index = 0
        /// 1-based line of `index`.
        var line = 1
        var arrayDepth = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// The offset of the next header's first `[`, or nil at the end.
        mutating func nextHeader() -> Int? {
            var atLineStart = true
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case .newline:
                    line += 1
                    index += 1
                    atLineStart = true
                    continue
                case .space, .tab, .carriageReturn:
                    index += 1
                    continue
                case UInt8(ascii: "["):
                    if atLineStart && arrayDepth == 0 { return index }
                    arrayDepth += 1
                    index += 1
                case UInt8(ascii: "]"):
                    arrayDepth = max(0, arrayDepth - 1)
                    index += 1
                case UInt8(ascii: "#"):
                    skipLine()
                    continue
                case .quote, .apostrophe:
                    skipString(quote: byte)
                default:
                    index += 1
                }
                atLineStart = false
            }
            return nil
        }

        /// Moves to the newline that ends this line (a header's rest or a comment).
        mutating func skipLine() {
            while index < bytes.count && bytes[index] != .newline { index += 1 }
        }

        /// Moves past a string that starts at `index`: `"…"`, `'…'`, `"""…"""` or `'''…'''`.
        private mutating func skipString(quote: UInt8) {
            let escapes = quote == .quote
            if run(of: quote, at: index) >= 3 {
                index += 3
                while index < bytes.count {
                    let byte = bytes[index]
                    if escapes && byte == .backslash {
                        index += 1
                        if index < bytes.count && bytes[index] == .newline { line += 1 }
                        index += 1
                        continue
                    }
                    if byte == .newline { line += 1 }
                    if byte == quote, run(of: quote, at: index) >= 3 {
                        // Up to two more quotes belong to the content ("""a""""" is `a""`).
                        index += min(run(of: quote, at: index), 5)
                        return
                    }
                    index += 1
                }
                return
            }
            index += 1
            while index < bytes.count {
                let byte = bytes[index]
                if byte == .newline { return }  // unterminated: toml++ reports it
                index += 1
                if byte == quote { return }
                if escapes && byte == .backslash && index < bytes.count && bytes[index] != .newline { index += 1 }
            }
        }

        private func run(of quote: UInt8, at start: Int) -> Int {
            var end = start
            while end < bytes.count && bytes[end] == quote { end += 1 }
            return end - start
        }
    }
}

private extension UInt8 {
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let quote = UInt8(ascii: "\"")
    static let apostrophe = UInt8(ascii: "'")
    static let backslash = UInt8(ascii: "\\")
}
