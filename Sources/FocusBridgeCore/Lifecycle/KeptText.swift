/// The sizes of what the bridge keeps of a notification (in memory, in history, in the held
/// table), whatever an application sends. What the bridge forwards is the app's original; only
/// what it remembers is cut, so a hostile or careless app cannot grow its memory or its disk.
public enum KeptText {
    /// App keys: names, desktop IDs and executables are short; 256 bytes leaves room for any real one.
    public static let maxAppKeyBytes = 256
    /// Summaries, as history, digests and held rows keep them.
    public static let maxSummaryBytes = 1024
    /// Bodies, as history and held rows keep them: enough to find a notification again, not
    /// an archive of megabyte bodies.
    public static let maxBodyBytes = 4096
    /// How much of the summary and body the duplicate tracker compares as text (the rest is
    /// compared by length and hash).
    public static let maxFingerprintBytes = 256

    public static func appKey(_ key: String) -> String { cut(key, maxBytes: maxAppKeyBytes) }
    public static func summary(_ text: String) -> String { cut(text, maxBytes: maxSummaryBytes) }
    public static func body(_ text: String) -> String { cut(text, maxBytes: maxBodyBytes) }

    /// `text` cut to at most `maxBytes` of UTF-8 on a character boundary: a cut never leaves half
    /// a code point or half an accented letter. A first character longer than the limit (a
    /// megabyte of combining marks is one) is cut at a code-point boundary instead.
    public static func cut(_ text: String, maxBytes: Int) -> String {
        let utf8 = text.utf8
        guard utf8.count > maxBytes else { return text }
        var kept = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(after: index)
            if utf8.distance(from: utf8.startIndex, to: next) > maxBytes { break }
            kept = next
            index = next
        }
        if kept > text.startIndex { return String(text[..<kept]) }
        // The first character alone is too long: cut it at a scalar boundary (continuation bytes
        // are 10xxxxxx).
        var end = utf8.index(utf8.startIndex, offsetBy: max(maxBytes, 0))
        while end > utf8.startIndex && (utf8[end] & 0xC0) == 0x80 { end = utf8.index(before: end) }
        return String(text.unicodeScalars[..<end])
    }
}

/// What the duplicate tracker remembers of a summary or body: a short prefix, the length and a
/// hash of the whole, so two megabyte bodies compare alike without being kept. The hash is
/// seeded per process (Swift's `Hasher`), which is all an in-memory window needs.
public struct TextFingerprint: Hashable, Sendable {
    public let prefix: String
    public let byteCount: Int
    public let hash: Int

    public init(_ text: String) {
        var text = text
        var hasher = Hasher()
        byteCount = text.withUTF8 { bytes in
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
            return bytes.count
        }
        hash = hasher.finalize()
        prefix = byteCount > KeptText.maxFingerprintBytes ? KeptText.cut(text, maxBytes: KeptText.maxFingerprintBytes) : text
    }
}
