import FocusBridgeTime

/// `[general] time-sensitive-review`: how often the bridge reviews the apps whose Time Sensitive
/// notifications were mostly left alone.
public enum ReviewFrequency: String, CaseIterable, Sendable {
    /// Every Monday at 10:00 local time, over the 7 days before (`TimeSensitiveReview`).
    case weekly
    /// Never by itself; `focusctl review` still asks when told to.
    case off
}

/// The periodic Time Sensitive review (focus-bridge(1), BEHAVIOUR; focusctl(1), REVIEW): once a
/// week, each app that sent at least `fewestSent` time-sensitive notifications in the 7 days
/// before the review and had fewer than half of them acted on gets one notification of the
/// bridge's, with Keep and Turn Off. An app is reviewed at most once in any 7 days
/// (`ReviewMemory`). Pure: the figures come from an `ActivityTally` of those 7 days, the time
/// zone and the instants are given, so it is tested on a fake clock.
public enum TimeSensitiveReview {
    /// An app is reviewed from this many time-sensitive notifications in the period ...
    public static let fewestSent = 3
    /// ... when fewer than this share of them were acted on ("fewer than half").
    public static let actedShare = 0.5
    /// The period a review counts, and in which an app is reviewed once: 7 days.
    public static let periodSeconds: Double = 7 * 86_400
    /// The weekly review runs on this day ...
    public static let weekday = Weekday.mon
    /// ... at this local time.
    public static let time = TimeOfDay(hour: 10, minute: 0)!

    /// One app due for review, with its figures.
    public struct Item: Equatable, Sendable {
        public var app: String
        /// Time-sensitive notifications it sent in the period, each once (an update under the
        /// same ID counts with the one it replaced).
        public var sent: Int
        /// Of those, acted on (`NotificationOutcome.acted`).
        public var acted: Int

        public init(app: String, sent: Int, acted: Int) {
            self.app = app
            self.sent = sent
            self.acted = acted
        }
    }

    /// How many time-sensitive notifications `counts` has, each once: those replaced under
    /// their ID by a newer one are left out (a progress shown ten times is one notification).
    public static func sent(_ counts: ActivityCounts) -> Int {
        counts.timeSensitive - counts.timeSensitiveOutcomes[.replaced, default: 0]
    }

    /// Whether an app with these figures is due: at least `fewestSent`, fewer than half acted on.
    public static func isDue(sent: Int, acted: Int) -> Bool {
        sent >= fewestSent && Double(acted) < actedShare * Double(sent)
    }

    /// The apps of a tally of the period that are due for review at `now`, in the tally's
    /// order (busiest first): not the bridge's own, not one whose Time Sensitive is off already
    /// (`timeSensitiveOn`), not one reviewed in the 7 days before `now` (`memory`).
    public static func due(_ apps: [(app: String, counts: ActivityCounts)], memory: ReviewMemory, at now: Instant,
                           timeSensitiveOn: (String) -> Bool) -> [Item] {
        var items: [Item] = []
        for (app, counts) in apps where app != Fate.ownApp {
            let item = Item(app: app, sent: sent(counts), acted: counts.timeSensitiveOutcomes[.acted, default: 0])
            guard isDue(sent: item.sent, acted: item.acted), !memory.wasReviewed(app, before: now),
                  timeSensitiveOn(app) else { continue }
            items.append(item)
        }
        return items
    }

    /// The instants of the weekly review in (`after`, `through`], oldest first: each Monday at
    /// 10:00 local time (a 10:00 the zone skips moves on by the gap, as a summary time does).
    public static func instants(after: Instant, through: Instant, timeZone: TimeZoneRules) -> [Instant] {
        guard through > after else { return [] }
        let clock = WallClock(timeZone: timeZone)
        var day = clock.day(of: after)
        let last = clock.day(of: through)
        var result: [Instant] = []
        // Bounded: a stored time far in the past is caught up once, whatever it says.
        for _ in 0..<(366 * 2) {
            if clock.weekday(of: day) == weekday {
                let instant = clock.instant(time, on: day)
                if instant > after && instant <= through { result.append(instant) }
            }
            if day == last { break }
            day = clock.day(day, plus: 1)
        }
        return result
    }

    /// The first instant of the weekly review after `date`.
    public static func next(after date: Instant, timeZone: TimeZoneRules) -> Instant? {
        instants(after: date, through: date.addingTimeInterval(8 * 86_400), timeZone: timeZone).first
    }
}

/// Which apps the Time Sensitive review asked about, when, with its figures, and whether the
/// question waits (for a Focus to end, or the next scheduled summary): kept in the store across
/// restarts (`Store.SettingKey.reviews`), so that no app is reviewed twice in 7 days.
public struct ReviewMemory: Codable, Equatable, Sendable {
    /// The most apps remembered (as many as a report lists).
    public static let maxEntries = ActivityTally.maxApps

    public enum State: String, Codable, CaseIterable, Sendable {
        /// Its notification waits for the Focus that would hold it to end, or the next summary.
        case waiting
        /// Its notification went out.
        case delivered
    }

    public struct Entry: Codable, Equatable, Sendable {
        public var app: String
        /// When the review found it due.
        public var at: Instant
        public var sent: Int
        public var acted: Int
        public var state: State

        public init(app: String, at: Instant, sent: Int, acted: Int, state: State) {
            self.app = app
            self.at = at
            self.sent = sent
            self.acted = acted
            self.state = state
        }

        enum CodingKeys: String, CodingKey {
            case app, at, sent, acted, state
        }

        /// Seconds since 1970, as the other stored times.
        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            app = try container.decode(String.self, forKey: .app)
            at = Instant(timeIntervalSince1970: try container.decode(Double.self, forKey: .at))
            sent = try container.decode(Int.self, forKey: .sent)
            acted = try container.decode(Int.self, forKey: .acted)
            state = try container.decode(State.self, forKey: .state)
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(app, forKey: .app)
            try container.encode(at.timeIntervalSince1970, forKey: .at)
            try container.encode(sent, forKey: .sent)
            try container.encode(acted, forKey: .acted)
            try container.encode(state, forKey: .state)
        }

        /// A stored entry the bridge can use: a name, a time within bounds, sane figures.
        var isPlausible: Bool {
            !app.isEmpty && TimeBounds.contains(at) && sent >= 0 && acted >= 0 && acted <= sent
        }
    }

    /// Oldest first.
    public private(set) var entries: [Entry]

    public init(_ entries: [Entry] = []) {
        self.entries = []
        for entry in entries where entry.isPlausible { note(entry) }
    }

    enum CodingKeys: String, CodingKey {
        case entries = "apps"
    }

    /// Read leniently: entries that cannot be used are left out.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try container.decode([Entry].self, forKey: .entries))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries, forKey: .entries)
    }

    /// The entry of `app` (any case).
    public func entry(_ app: String) -> Entry? {
        let key = app.lowercased()
        return entries.last { $0.app.lowercased() == key }
    }

    /// Whether `app` was reviewed in the period that ends at `now` (the 7 days before it). A
    /// review found due after `now` (the clock set back) counts too.
    public func wasReviewed(_ app: String, before now: Instant) -> Bool {
        guard let entry = entry(app) else { return false }
        return entry.at > now.addingTimeInterval(-TimeSensitiveReview.periodSeconds)
    }

    /// Notes (or replaces) the entry of its app; the oldest go past `maxEntries`.
    public mutating func note(_ entry: Entry) {
        let key = entry.app.lowercased()
        entries.removeAll { $0.app.lowercased() == key }
        entries.append(entry)
        if entries.count > Self.maxEntries { entries.removeFirst(entries.count - Self.maxEntries) }
    }

    /// The reviews that wait, oldest first.
    public var waiting: [Entry] { entries.filter { $0.state == .waiting } }

    /// Forgets what no longer matters at `now`: delivered reviews from before the period. One
    /// that waits stays until it goes out or its app is reviewed again.
    public mutating func forget(at now: Instant) {
        let start = now.addingTimeInterval(-TimeSensitiveReview.periodSeconds)
        entries.removeAll { $0.state == .delivered && $0.at <= start }
    }

    /// The entries of the period that ends at `now`, and those that wait, oldest first.
    public func recent(at now: Instant) -> [Entry] {
        let start = now.addingTimeInterval(-TimeSensitiveReview.periodSeconds)
        return entries.filter { $0.at > start || $0.state == .waiting }
    }
}
