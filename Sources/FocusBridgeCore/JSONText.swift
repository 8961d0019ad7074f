import Foundation

/// The JSON texts the control interface answers and `focusctl` prints: typed reports, encoded
/// with sorted keys so the output is stable. Keys are documented in focusctl(1).
public enum JSONText {
    public static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try JSONDecoder().decode(type, from: Data(text.utf8))
    }

    /// A JSON string literal (for one-line log output).
    public static func quote(_ text: String) -> String { encode(text) }
}
