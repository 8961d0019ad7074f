/// Refuses a table header that names no table (`[`, `[*]`, `[Ärger]`) before the TOML parser
/// sees it: toml++ 3.4 (inside TOMLKit 0.6) stops the process with an assertion on such a header
/// (upstream: marzer/tomlplusplus#301), and a half-typed header in a file being saved must not
/// take the bridge down on reload. Found by the config fuzzer (Fuzz/).
enum HeaderCheck {
    static func check(_ text: String, path: String) throws(ConfigError) {
        var inMultilineString = false
        var arrayDepth = 0
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            let quotes = raw.components(of: "\"\"\"") + raw.components(of: "'''")
            if inMultilineString {
                if quotes % 2 == 1 { inMultilineString = false }
                continue
            }
            if arrayDepth == 0 && line.hasPrefix("[") {
                let brackets = line.prefix { $0 == "[" }.count
                let name = line.dropFirst(brackets).drop { $0 == " " || $0 == "\t" }
                guard brackets <= 2, let first = name.first, first == "\"" || first == "'" || Self.isBareKeyCharacter(first) else {
                    let column = raw.count - name.count + 1
                    throw ConfigError(path: path, line: index + 1, column: column,
                                      message: "a table header needs a name made of A-Z a-z 0-9 _ - or a quoted string")
                }
                continue
            }
            if quotes % 2 == 1 { inMultilineString = true; continue }
            // Arrays spanning lines: their inner lines may start with "[".
            if arrayDepth > 0 || line.contains("=") { arrayDepth = max(0, arrayDepth + Self.bracketBalance(line)) }
        }
    }

    static func isBareKeyCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "_" || character == "-")
    }

    /// Opening minus closing brackets outside strings and comments.
    private static func bracketBalance(_ line: Substring) -> Int {
        var balance = 0
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#" {
                break
            } else if character == "[" {
                balance += 1
            } else if character == "]" {
                balance -= 1
            }
        }
        return balance
    }
}

extension Substring {
    /// How many times `needle` occurs.
    func components(of needle: String) -> Int {
        var count = 0
        var rest = self[...]
        while let range = rest.range(of: needle) {
            count += 1
            rest = rest[range.upperBound...]
        }
        return count
    }
}
