import FocusBridgeTime

/// A notification described on the command line (`focusctl explain`), to be decided without
/// being sent. The same request is decided by the running daemon or locally with `--config`.
public struct ExplainRequest: Codable, Equatable, Sendable {
    public var app: String
    public var urgency: String?
    public var category: String?
    public var summary: String
    public var body: String
    /// `KEY=LABEL` items.
    public var actions: [String]
    /// `TYPE:NAME:VALUE` items, as notify-send takes them.
    public var hints: [String]
    /// A Focus to assume on.
    public var focus: String?
    /// The moment to decide at (`HH:MM` today, or an ISO 8601 date and time).
    public var at: String?

    public init(app: String, urgency: String? = nil, category: String? = nil, summary: String = "", body: String = "",
                actions: [String] = [], hints: [String] = [], focus: String? = nil, at: String? = nil) {
        self.app = app
        self.urgency = urgency
        self.category = category
        self.summary = summary
        self.body = body
        self.actions = actions
        self.hints = hints
        self.focus = focus
        self.at = at
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The notification as an application would have sent it with `app_name` = `app`.
    public func notification() throws(Invalid) -> NotificationRequest {
        var hints: [String: HintValue] = [:]
        for item in self.hints {
            let (name, value) = try Self.hint(item)
            hints[name] = value
        }
        if let urgency {
            let levels = ["low": 0, "normal": 1, "critical": 2]
            guard let value = levels[urgency.lowercased()] else {
                throw Invalid(description: "--urgency must be low, normal or critical, not \"\(urgency)\".")
            }
            hints["urgency"] = .integer(Int64(value))
        }
        if let category { hints["category"] = .string(category) }
        var flat: [String] = []
        for action in actions {
            guard let equals = action.firstIndex(of: "=") else {
                throw Invalid(description: "--action takes KEY=LABEL, not \"\(action)\".")
            }
            flat += [String(action[..<equals]), String(action[action.index(after: equals)...])]
        }
        return NotificationRequest(appName: app, summary: summary, body: body, actions: flat, hints: hints)
    }

    /// The moment to decide at, from `at` and the time zone; `now` when none was given.
    public func moment(now: Instant, timeZone: TimeZoneRules) throws(Invalid) -> Instant {
        guard let at else { return now }
        let clock = WallClock(timeZone: timeZone)
        if let time = TimeOfDay(at) { return clock.instant(time, on: clock.day(of: now)) }
        if let instant = DateTimeText.instant(at, clock: clock) { return instant }
        throw Invalid(description: "--at takes HH:MM or an ISO 8601 date and time, not \"\(at)\".")
    }

    /// Parses `TYPE:NAME:VALUE` (types: int, byte, double, string, boolean, strings — a
    /// comma-separated list).
    static func hint(_ item: String) throws(Invalid) -> (String, HintValue) {
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
