/// A problem in the configuration file, told as `PATH:LINE:COLUMN: message` like a compiler does.
public struct ConfigError: Error, CustomStringConvertible, Equatable, Sendable {
    public let path: String
    public let line: Int
    public let column: Int
    public let message: String

    public init(path: String, line: Int, column: Int, message: String) {
        self.path = path
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "\(path):\(line):\(column): \(message)" }
}
