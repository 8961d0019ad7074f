/// A hint's value as the core sees it: enough to decide, never used to forward.
///
/// The D-Bus layer keeps the original hint for forwarding (byte for byte); the core only reads.
public enum HintValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case double(Double)
    case strings([String])
    /// Any other type, by its D-Bus signature (image data, dictionaries, …).
    case other(signature: String)

    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
}
