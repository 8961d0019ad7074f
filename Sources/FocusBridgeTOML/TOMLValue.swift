/// Where something stands in the TOML text: 1-based line and column. Lines end at LF or CR LF;
/// a column counts Unicode scalars (a tab is one column).
public struct TOMLPosition: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let line: Int
    public let column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public static func < (a: TOMLPosition, b: TOMLPosition) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    public var description: String { "\(line):\(column)" }
}

/// A file that is not TOML 1.0: where the reader stopped, and why.
public struct TOMLError: Error, Equatable, Sendable, CustomStringConvertible {
    public let position: TOMLPosition
    public let message: String

    public init(position: TOMLPosition, message: String) {
        self.position = position
        self.message = message
    }

    public var description: String { "\(position): \(message)" }
}

/// A TOML value, typed as TOML types it.
public indirect enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    /// `1979-05-27T07:32:00Z`, `1979-05-27 00:32:00.999-07:00`
    case offsetDateTime(TOMLOffsetDateTime)
    /// `1979-05-27T07:32:00`
    case localDateTime(TOMLLocalDateTime)
    /// `1979-05-27`
    case localDate(TOMLLocalDate)
    /// `07:32:00`
    case localTime(TOMLLocalTime)
    case array(TOMLArray)
    case table(TOMLTable)

    /// TOML's name of the type, with its article: "a string", "an integer", "an offset date-time".
    public var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .offsetDateTime: "an offset date-time"
        case .localDateTime: "a local date-time"
        case .localDate: "a local date"
        case .localTime: "a local time"
        case .array: "an array"
        case .table: "a table"
        }
    }

    /// Equal values of equal types; NaN equals NaN here (both read `nan`), so that a document
    /// equals itself.
    public static func == (a: TOMLValue, b: TOMLValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): x == y
        case (.integer(let x), .integer(let y)): x == y
        case (.float(let x), .float(let y)): x == y || (x.isNaN && y.isNaN)
        case (.boolean(let x), .boolean(let y)): x == y
        case (.offsetDateTime(let x), .offsetDateTime(let y)): x == y
        case (.localDateTime(let x), .localDateTime(let y)): x == y
        case (.localDate(let x), .localDate(let y)): x == y
        case (.localTime(let x), .localTime(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.table(let x), .table(let y)): x == y
        default: false
        }
    }

    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    public var float: Double? { if case .float(let value) = self { value } else { nil } }
    public var boolean: Bool? { if case .boolean(let value) = self { value } else { nil } }
    public var array: TOMLArray? { if case .array(let value) = self { value } else { nil } }
    public var table: TOMLTable? { if case .table(let value) = self { value } else { nil } }
}

/// A table: its keys in the order the file gives them, each with the position of the key and of
/// its value.
public struct TOMLTable: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public let key: String
        /// Where the key is written: in a `key = value` line, a dotted key or a `[header]` (for a
        /// table defined by a header, the key in that header; for one only implied, its first
        /// mention).
        public let keyPosition: TOMLPosition
        public let value: TOMLValue
        /// Where the value starts: its first character; for a table, the `[` of its header, the
        /// `{` of an inline table, or the key that first implies it.
        public let valuePosition: TOMLPosition
    }

    /// Where the table is defined: its header's `[`, an inline table's `{`, the key that implies
    /// it; 1:1 for the root table.
    public let position: TOMLPosition
    public let entries: [Entry]
    private let index: [String: Int]

    public init(position: TOMLPosition, entries: [Entry]) {
        self.position = position
        self.entries = entries
        var index: [String: Int] = [:]
        for (offset, entry) in entries.enumerated() { index[entry.key] = offset }
        self.index = index
    }

    public var keys: [String] { entries.map(\.key) }
    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }

    public func entry(_ key: String) -> Entry? { index[key].map { entries[$0] } }
    public subscript(key: String) -> TOMLValue? { entry(key)?.value }

    public static func == (a: TOMLTable, b: TOMLTable) -> Bool {
        a.position == b.position && a.entries == b.entries
    }
}

/// An array: its elements, each with the position where it starts.
public struct TOMLArray: Equatable, Sendable {
    public struct Element: Equatable, Sendable {
        public let value: TOMLValue
        public let position: TOMLPosition
    }

    /// The `[` of the array, or the `[[` of the first table of an array of tables.
    public let position: TOMLPosition
    public let elements: [Element]

    public init(position: TOMLPosition, elements: [Element]) {
        self.position = position
        self.elements = elements
    }

    public var values: [TOMLValue] { elements.map(\.value) }
    public var count: Int { elements.count }
}

/// A calendar date, checked: month 1–12, the day within the month (29 February in leap years).
public struct TOMLLocalDate: Hashable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init?(year: Int, month: Int, day: Int) {
        guard (0...9999).contains(year), (1...12).contains(month),
              (1...TOMLLocalDate.days(inMonth: month, year: year)).contains(day) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// `YYYY-MM-DD`
    public var description: String { "\(digits(year, 4))-\(digits(month, 2))-\(digits(day, 2))" }
}

/// A time of day, checked: hour 0–23, minute 0–59, second 0–60 (a leap second); the fraction of
/// the second to the nanosecond (further digits are cut off, as TOML allows).
public struct TOMLLocalTime: Hashable, Sendable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int
    public let second: Int
    public let nanosecond: Int

    public init?(hour: Int, minute: Int, second: Int, nanosecond: Int = 0) {
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second),
              (0..<1_000_000_000).contains(nanosecond) else { return nil }
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
    }

    /// `HH:MM:SS`, then the fraction without trailing zeros when there is one.
    public var description: String {
        var text = "\(digits(hour, 2)):\(digits(minute, 2)):\(digits(second, 2))"
        if nanosecond > 0 {
            var fraction = digits(nanosecond, 9)
            while fraction.hasSuffix("0") { fraction.removeLast() }
            text += "." + fraction
        }
        return text
    }
}

/// A date and a time of day, without an offset.
public struct TOMLLocalDateTime: Hashable, Sendable, CustomStringConvertible {
    public let date: TOMLLocalDate
    public let time: TOMLLocalTime

    public init(date: TOMLLocalDate, time: TOMLLocalTime) {
        self.date = date
        self.time = time
    }

    /// RFC 3339 with `T`.
    public var description: String { "\(date)T\(time)" }
}

/// A date and a time at an offset from UTC.
public struct TOMLOffsetDateTime: Hashable, Sendable, CustomStringConvertible {
    public let date: TOMLLocalDate
    public let time: TOMLLocalTime
    /// Minutes east of UTC, from −23:59 to +23:59; 0 for `Z`.
    public let offsetMinutes: Int

    public init(date: TOMLLocalDate, time: TOMLLocalTime, offsetMinutes: Int) {
        self.date = date
        self.time = time
        self.offsetMinutes = offsetMinutes
    }

    /// RFC 3339 with `T`, and `Z` for a zero offset.
    public var description: String {
        guard offsetMinutes != 0 else { return "\(date)T\(time)Z" }
        let size = abs(offsetMinutes)
        return "\(date)T\(time)\(offsetMinutes < 0 ? "-" : "+")\(digits(size / 60, 2)):\(digits(size % 60, 2))"
    }
}

/// `value` in decimal, zero-padded to `width` digits.
private func digits(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: "0", count: max(0, width - text.count)) + text
}
