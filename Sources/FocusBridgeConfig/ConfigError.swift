/// The problems of a configuration file, each told as `PATH:LINE:COLUMN: message` like a compiler
/// does, in file order. A file with any problem is refused as a whole; all of them are here, so
/// that one run of `focusctl check-config` shows every one.
///
/// `path`, `line`, `column` and `message` are the first problem's; `description` is every
/// problem's line, joined by newlines.
public struct ConfigError: Error, CustomStringConvertible, Equatable, Sendable {
    /// One mistake at one place.
    public struct Problem: CustomStringConvertible, Equatable, Sendable {
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

    /// Never empty; in file order (by line, then column; at one place, in the order found).
    public let problems: [Problem]

    /// One problem.
    public init(path: String, line: Int, column: Int, message: String) {
        problems = [Problem(path: path, line: line, column: column, message: message)]
    }

    /// Several problems (at least one), put in file order.
    public init(problems: [Problem]) {
        precondition(!problems.isEmpty, "a ConfigError needs a problem")
        self.problems = problems.enumerated()
            .sorted { ($0.element.line, $0.element.column, $0.offset) < ($1.element.line, $1.element.column, $1.offset) }
            .map(\.element)
    }

    public var path: String { problems[0].path }
    public var line: Int { problems[0].line }
    public var column: Int { problems[0].column }
    public var message: String { problems[0].message }

    /// Every problem's `PATH:LINE:COLUMN: message`, one a line.
    public var lines: [String] { problems.map(\.description) }

    public var description: String { lines.joined(separator: "\n") }
}
