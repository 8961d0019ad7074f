/// The JSON texts the control interface answers and `focusctl` prints: typed reports, encoded
/// with sorted keys so the output is stable. Keys are documented in focusctl(1). Core's own JSON
/// (`JSONParser`, `JSONWriter`, `JSONValueEncoder`/`Decoder`), written as Foundation's
/// `JSONEncoder` writes it with `.sortedKeys` and `.withoutEscapingSlashes`, so Core links no
/// Foundation.
public enum JSONText {
    public static func encode<T: Encodable>(_ value: T) -> String {
        guard let json = try? JSONValueEncoder().encode(value) else { return "null" }
        return JSONWriter.write(json, sortedKeys: true)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from text: String,
                                            limits: JSONParser.Limits = .standard) throws -> T {
        try decode(type, from: Array(text.utf8), limits: limits)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8],
                                            limits: JSONParser.Limits = .standard) throws -> T {
        try JSONValueDecoder().decode(type, from: try JSONParser.parse(bytes, limits: limits))
    }

    /// A JSON string literal (for one-line log output).
    public static func quote(_ text: String) -> String { JSONWriter.string(text) }
}
