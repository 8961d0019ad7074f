/// A local wall-clock time of day, `HH:MM`.
public struct TimeOfDay: Comparable, Hashable, Sendable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int

    public init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    /// Parses `H:MM` or `HH:MM` (24-hour clock); `24:00` is not a time of day.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let hour = Int(parts[0]), let minute = Int(parts[1]) else { return nil }
        self.init(hour: hour, minute: minute)
    }

    public var minutes: Int { hour * 60 + minute }

    public static func < (lhs: TimeOfDay, rhs: TimeOfDay) -> Bool { lhs.minutes < rhs.minutes }

    public var description: String {
        (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }
}

/// A day of the week as the config names it (`mon` … `sun`); raw values follow
/// `Calendar`'s weekday numbers (Sunday = 1).
public enum Weekday: Int, CaseIterable, Comparable, Sendable {
    case sun = 1, mon, tue, wed, thu, fri, sat

    public init?(name: String) {
        guard let day = Weekday.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = day
    }

    public var name: String {
        switch self {
        case .sun: "sun"
        case .mon: "mon"
        case .tue: "tue"
        case .wed: "wed"
        case .thu: "thu"
        case .fri: "fri"
        case .sat: "sat"
        }
    }

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }
}
