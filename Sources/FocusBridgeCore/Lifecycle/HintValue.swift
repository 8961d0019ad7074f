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

extension HintValue {
    /// A hint written as text was not `TYPE:NAME:VALUE`: the sentence says why.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// Parses `TYPE:NAME:VALUE`, as notify-send takes a hint (`focusctl explain --hint`, a kept
    /// request's hints); types: int, byte, double, string, boolean, strings (a comma-separated list).
    public static func parse(_ item: String) throws(Invalid) -> (String, HintValue) {
        let parts = item.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, !parts[1].isEmpty else {
            throw Invalid(description: "--hint takes TYPE:NAME:VALUE, not \"\(item)\".")
        }
        let (type, name, value) = (parts[0].lowercased(), parts[1], parts[2])
        switch type {
        case "int", "byte":
            guard let number = Int64(value) else { throw Invalid(description: "--hint \(name): \"\(value)\" is not a whole number.") }
            return (name, .integer(number))
        case "double":
            guard let number = Double(value) else { throw Invalid(description: "--hint \(name): \"\(value)\" is not a number.") }
            return (name, .double(number))
        case "string":
            return (name, .string(value))
        case "boolean", "bool":
            guard let flag = ["true": true, "false": false][value.lowercased()] else {
                throw Invalid(description: "--hint \(name): \"\(value)\" is not true or false.")
            }
            return (name, .bool(flag))
        case "strings":
            return (name, .strings(value.split(separator: ",").map(String.init)))
        default:
            throw Invalid(description: "--hint type must be int, byte, double, string, boolean or strings, not \"\(type)\".")
        }
    }
}
