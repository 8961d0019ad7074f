// The little of Foundation's string API Core needs, written out on the standard library
// (Core links no Foundation). `replacing(_:with:)` and `firstRange(of:)` are the
// standard library's own.

extension String {
    /// `value` in decimal with zeros in front to `width` digits (`7` → `07`); what
    /// `String(format: "%02d")` does (the width counts a minus sign, as printf's does).
    static func zeroPadded(_ value: Int, width: Int) -> String {
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
