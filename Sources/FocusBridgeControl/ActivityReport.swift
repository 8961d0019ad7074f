import FocusBridgeCore
import FocusBridgeTime

/// `focusctl report --json` (focusctl(1), JSON OUTPUT, report): the notifications of the last
/// days per app and in all, what became of them, and the suggestions they make.
public struct ActivityReport: Codable, Equatable, Sendable {
    /// The report's days, 7 unless asked (at most `history-days`).
    public static let defaultDays = 7

    /// What was counted, for one app or for all: every key always there, zero or not.
    public struct Counts: Codable, Equatable, Sendable {
        public struct TimeSensitive: Codable, Equatable, Sendable {
            public var total: Int
            public var outcomes: [String: Int]
        }

        public var total: Int
        public var levels: [String: Int]
        public var decisions: [String: Int]
        /// Of the notifications shown (`NotificationOutcome`).
        public var outcomes: [String: Int]
        public var timeSensitive: TimeSensitive
        /// 24 counts, local hours from midnight.
        public var byHour: [Int]
        public var bursts: Int

        enum CodingKeys: String, CodingKey {
            case total, levels, decisions, outcomes, bursts
            case timeSensitive = "time-sensitive"
            case byHour = "by-hour"
        }

        public init(_ counts: ActivityCounts) {
            total = counts.total
            levels = Self.all(InterruptionLevel.allCases.map(\.rawValue)) { counts.levels[InterruptionLevel(rawValue: $0)!] }
            decisions = Self.all(DeliveryOutcome.allCases.map(\.rawValue)) { counts.decisions[DeliveryOutcome(rawValue: $0)!] }
            outcomes = Self.outcomes(counts.outcomes)
            timeSensitive = TimeSensitive(total: counts.timeSensitive, outcomes: Self.outcomes(counts.timeSensitiveOutcomes))
            byHour = counts.byHour
            bursts = counts.bursts
        }

        private static func outcomes(_ counts: [NotificationOutcome: Int]) -> [String: Int] {
            all(NotificationOutcome.allCases.map(\.rawValue)) { counts[NotificationOutcome(rawValue: $0)!] }
        }

        private static func all(_ keys: [String], _ count: (String) -> Int?) -> [String: Int] {
            Dictionary(uniqueKeysWithValues: keys.map { ($0, count($0) ?? 0) })
        }
    }

    /// One app's counts: `app`, then the keys of `Counts` beside it.
    public struct App: Codable, Equatable, Sendable {
        public var app: String
        public var counts: Counts

        enum CodingKeys: String, CodingKey {
            case app
        }

        public init(app: String, counts: Counts) {
            self.app = app
            self.counts = counts
        }

        public init(from decoder: Decoder) throws {
            app = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .app)
            counts = try Counts(from: decoder)
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(app, forKey: .app)
            try counts.encode(to: encoder)
        }
    }

    public struct Suggestion: Codable, Equatable, Sendable {
        public var app: String
        /// `time-sensitive-off`, `summary`, `passive` or `mute` (`Activity.Kind`).
        public var kind: String
        /// Why, in one sentence, with the figures.
        public var why: String
        /// The command that applies it, as a person would type it.
        public var command: String

        public init(_ suggestion: Activity.Suggestion) {
            app = suggestion.app
            kind = suggestion.kind.rawValue
            why = suggestion.why
            command = suggestion.command
        }
    }

    public var days: Int
    public var since: String
    public var until: String
    /// The zone of the hours (`by-hour`): the daemon's.
    public var timeZone: String
    public var totals: Counts
    /// Busiest first, at most `ActivityTally.maxApps`.
    public var apps: [App]
    /// Notifications of the period from apps past `ActivityTally.maxApps` (in `totals` only).
    public var unlisted: Int
    public var suggestions: [Suggestion]

    enum CodingKeys: String, CodingKey {
        case days, since, until, totals, apps, unlisted, suggestions
        case timeZone = "time-zone"
    }

    /// The report of `tally` (complete), with its suggestions.
    public init(_ tally: ActivityTally, days: Int, timeZone: String, suggestions: [Activity.Suggestion]) {
        self.days = days
        since = Timestamp.string(tally.since)
        until = Timestamp.string(tally.until)
        self.timeZone = timeZone
        totals = Counts(tally.totals)
        apps = tally.ordered.map { App(app: $0.app, counts: Counts($0.counts)) }
        unlisted = tally.unlisted
        self.suggestions = suggestions.map(Suggestion.init)
    }
}
