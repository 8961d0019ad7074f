// The little of Foundation's string API Core needs, written out on the standard library
// (Core links no Foundation). `replacing(_:with:)` and `firstRange(of:)` are the
// standard library's own.

extension String {
    /// `value` in decimal with zeros in front to `width` digits (`7` → `07`); what
    /// `String(format: "%02d")` does (the width counts a minus sign, as printf's does).
    public static func zeroPadded(_ value: Int, width: Int) -> String {
        let digits = String(value.magnitude)
        let padding = String(repeating: "0", count: Swift.max(0, width - digits.count - (value < 0 ? 1 : 0)))
        return (value < 0 ? "-" : "") + padding + digits
    }

    /// `lowercased()`, without its work and a new string when the text is ASCII without a
    /// capital letter (app keys, names of daemons: nearly always), which is then itself.
    func lowercasedCheaply() -> String {
        var text = self
        let lower = text.withUTF8 { bytes in
            bytes.allSatisfy { $0 < 0x80 && !($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) }
        }
        return lower ? text : lowercased()
    }

    /// `parts` one after the other, made at once at its length: an interpolation or `+` grows
    /// its string piece by piece, each piece a copy and often an allocation (the decision's
    /// trace lines are written on every `Notify`). Inlined, so the array of the parts can
    /// stay on the stack.
    @inline(__always)
    static func joining(_ parts: String...) -> String {
        let count = parts.reduce(0) { $0 + $1.utf8.count }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var end = 0
            for var part in parts {
                part.withUTF8 { bytes in
                    end = UnsafeMutableBufferPointer(rebasing: buffer[end...]).initialize(fromContentsOf: bytes) + end
                }
            }
            return end
        }
    }
}

extension StringProtocol {
    /// Without the spaces and tabs at either end: what `trimmingCharacters(in: .whitespaces)`
    /// does (tab and Unicode's space separators, not line breaks).
    func trimmingBlanks() -> String {
        func isBlank(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isBlank($0) }),
              let last = scalars.lastIndex(where: { !isBlank($0) }) else { return "" }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[first...last])
        return text
    }
}

extension StringProtocol {
    /// The text with every control character written out, so that printing or logging text from
    /// outside (an app name, a summary, another device's file) can neither send a terminal a
    /// command (a window title, a clipboard write, a cleared screen, a row overwritten) nor start
    /// a new line of its own: ESC is `\e`, CR `\r`, LF `\n`, tab `\t`, and every other C0
    /// character, DEL and the C1 controls (U+0080–U+009F) `\xHH`, the code point in two hex
    /// digits. Everything else is itself (a backslash too). The notation is focusctl(1)'s, and
    /// this is the one place that makes it.
    /// The same, line by line: the line breaks stay (a message of several lines, such as every
    /// mistake of a configuration, one per line), every other control character is escaped.
    public var escapingControlCharactersKeepingLines: String {
        // By scalars: as Characters, "\r\n" is one and would not split at its "\n".
        unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .map { String(String.UnicodeScalarView($0)).escapingControlCharacters }.joined(separator: "\n")
    }

    public var escapingControlCharacters: String {
        var text = String(self)
        let clean = text.withUTF8 { bytes in
            // A C1 control is U+0080–U+009F: 0xC2 then 0x80–0x9F in UTF-8.
            var afterC2 = false
            for byte in bytes {
                if byte < 0x20 || byte == 0x7F || (afterC2 && byte <= 0x9F) { return false }
                afterC2 = byte == 0xC2
            }
            return true
        }
        if clean { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        let hex = Array("0123456789abcdef")
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x1B: out += "\\e"
            case 0x0D: out += "\\r"
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0..<0x20, 0x7F...0x9F:
                out += "\\x"
                out.append(hex[Int(scalar.value >> 4)])
                out.append(hex[Int(scalar.value & 0xF)])
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
