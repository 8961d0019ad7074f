import FocusBridgeCore
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
            let name: String, value: HintValue
            do { (name, value) = try HintValue.parse(item) } catch { throw Invalid(description: error.description) }
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
}
