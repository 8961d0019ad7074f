import FocusBridgeTime

/// One history row as `focusctl report` counts it: what the store reads of it, nothing more.
public struct ActivityRow: Equatable, Sendable {
    public var id: UInt32
    public var app: String
    public var level: InterruptionLevel
    public var decision: DeliveryOutcome
    public var received: Instant
    public var closeReason: UInt32?
    /// An action of its app was invoked on it.
    public var acted: Bool
    /// A held one that went out as itself later.
    public var replayed: Bool

    public init(id: UInt32, app: String, level: InterruptionLevel, decision: DeliveryOutcome, received: Instant,
                closeReason: UInt32? = nil, acted: Bool = false, replayed: Bool = false) {
        self.id = id
        self.app = app
        self.level = level
        self.decision = decision
        self.received = received
        self.closeReason = closeReason
        self.acted = acted
        self.replayed = replayed
    }
}

/// What one app (or all of them) sent in the period of a report, counted.
public struct ActivityCounts: Equatable, Sendable {
    /// Every notification received, whatever became of it.
    public var total = 0
    public var levels: [InterruptionLevel: Int] = [:]
    public var decisions: [DeliveryOutcome: Int] = [:]
    /// Of the notifications shown (`NotificationOutcome.of`): what the person did with them.
    public var outcomes: [NotificationOutcome: Int] = [:]
    /// The time-sensitive ones, and what became of those shown.
    public var timeSensitive = 0
    public var timeSensitiveOutcomes: [NotificationOutcome: Int] = [:]
    /// Received in each hour of the day, local time (0 is midnight to one).
    public var byHour = [Int](repeating: 0, count: 24)
    /// How many times it sent `Activity.burstSize` or more within `Activity.burstSeconds`.
    public var bursts = 0

    public init() {}

    /// Shown and then acted on, dismissed or expired: the outcomes that say whether the person
    /// wanted it (one closed by its app, replaced or still open says nothing either way).
    public static func decided(_ outcomes: [NotificationOutcome: Int]) -> Int {
        outcomes[.acted, default: 0] + outcomes[.dismissed, default: 0] + outcomes[.expired, default: 0]
    }

    mutating func add(_ row: ActivityRow, outcome: NotificationOutcome?, hour: Int) {
        total += 1
        levels[row.level, default: 0] += 1
        decisions[row.decision, default: 0] += 1
        if let outcome { outcomes[outcome, default: 0] += 1 }
        if row.level == .timeSensitive {
            timeSensitive += 1
            if let outcome { timeSensitiveOutcomes[outcome, default: 0] += 1 }
        }
        byHour[hour] += 1
    }

    mutating func add(_ other: ActivityCounts) {
        total += other.total
        levels.merge(other.levels, uniquingKeysWith: +)
        decisions.merge(other.decisions, uniquingKeysWith: +)
        outcomes.merge(other.outcomes, uniquingKeysWith: +)
        timeSensitive += other.timeSensitive
        timeSensitiveOutcomes.merge(other.timeSensitiveOutcomes, uniquingKeysWith: +)
        for hour in 0..<24 { byHour[hour] += other.byHour[hour] }
        bursts += other.bursts
    }
}

/// `focusctl report`'s counting (focusctl(1), REPORT): the history rows of a period, newest
/// first, counted per app — by level, decision, outcome and hour of the day (in `timeZone`), and
/// the bursts — with the totals of all apps. Pure: the rows, the period and the time zone are
/// given, so it is tested on a fake clock; the daemon feeds it from the store a slice at a time.
public struct ActivityTally: Sendable {
    /// The most apps counted one by one (any client may send under any name); rows of apps met
    /// after them count in `unlisted` and in the totals.
    public static let maxApps = 1000

    public let since: Instant
    public let until: Instant
    private let clock: WallClock
    public private(set) var apps: [String: ActivityCounts] = [:]
    /// The totals of every row of the period, of listed and unlisted apps.
    public private(set) var totals = ActivityCounts()
    /// Rows of apps past `maxApps`.
    public private(set) var unlisted = 0
    /// IDs met so far: an older row with one of them was replaced (rows come newest first).
    private var ids: Set<UInt32> = []
    /// Per app, the times of its newest rows not yet part of a burst, newest first.
    private var recent: [String: [Instant]] = [:]
    /// Rows of the period counted.
    public private(set) var counted = 0

    /// Counts the rows received from `since` (inclusive) to `until` (exclusive), local hours in `timeZone`.
    public init(since: Instant, until: Instant, timeZone: TimeZoneRules) {
        self.since = since
        self.until = until
        clock = WallClock(timeZone: timeZone)
    }

    /// Counts one row; rows come newest first (the order of history). A row outside the period
    /// only notes its ID: a newer row replaced the older ones that share it.
    public mutating func add(_ row: ActivityRow) {
        let replaced = !ids.insert(row.id).inserted
        guard row.received >= since, row.received < until else { return }
        counted += 1
        let outcome = NotificationOutcome.of(decision: row.decision, replayed: row.replayed, closeReason: row.closeReason,
                                             acted: row.acted, replaced: replaced)
        let hour = clock.localTime(of: row.received).hour
        totals.add(row, outcome: outcome, hour: hour)
        guard apps[row.app] != nil || apps.count < Self.maxApps else {
            unlisted += 1
            return
        }
        apps[row.app, default: ActivityCounts()].add(row, outcome: outcome, hour: hour)
        noteBurst(row)
    }

    /// A burst: `Activity.burstSize` rows of one app within `Activity.burstSeconds`; the rows of
    /// one burst count once, and the next burst starts after it.
    private mutating func noteBurst(_ row: ActivityRow) {
        var times = recent[row.app] ?? []
        times.append(row.received)
        if times.count > Activity.burstSize { times.removeFirst(times.count - Activity.burstSize) }
        // Newest first, but a clock set back may break the order: the span is what counts.
        if times.count == Activity.burstSize,
           let first = times.first, let last = times.last, abs(first.timeIntervalSince(last)) <= Activity.burstSeconds {
            apps[row.app]?.bursts += 1
            totals.bursts += 1
            times = []
        }
        recent[row.app] = times
    }

    /// The apps, busiest first (then by name), with their counts.
    public var ordered: [(app: String, counts: ActivityCounts)] {
        apps.map { (app: $0.key, counts: $0.value) }.sorted { ($1.counts.total, $0.app) < ($0.counts.total, $1.app) }
    }
}

/// The thresholds of `focusctl report`'s suggestions and how each is applied (focusctl(1),
/// REPORT, where they are documented with the same numbers).
public enum Activity {
    /// A burst: this many notifications of one app ...
    public static let burstSize = 5
    /// ... within this many seconds.
    public static let burstSeconds: Double = 60

    /// `time-sensitive-off`: at least this many time-sensitive notifications acted on, dismissed
    /// or expired ...
    public static let fewestTimeSensitive = 5
    /// ... and fewer than this share of them acted on.
    public static let rarelyActed = 0.25
    /// `summary`: at least this many shown and acted on, dismissed or expired ...
    public static let fewestForSummary = 10
    /// ... and at least this share of them dismissed or expired.
    public static let mostlyIgnored = 0.8
    /// `passive` or `mute`: at least this many bursts.
    public static let fewestBursts = 3

    /// What a suggestion proposes.
    public enum Kind: String, CaseIterable, Codable, Sendable {
        /// Its time-sensitive notifications arrive as ordinary ones.
        case timeSensitiveOff = "time-sensitive-off"
        /// Its notifications wait for the scheduled summary.
        case summary
        /// Its notifications come without sound or banner insistence.
        case passive
        /// It is kept quiet for a day.
        case mute
    }

    /// One suggestion: the app, what to do, why, and the command that does it.
    public struct Suggestion: Equatable, Sendable {
        public var app: String
        public var kind: Kind
        public var why: String
        public var command: String
    }

    /// What the settings are now, so that nothing already done is suggested.
    public struct Current: Equatable, Sendable {
        public var rule: AppRule
        public var muted: Bool

        public init(rule: AppRule = AppRule(), muted: Bool = false) {
            self.rule = rule
            self.muted = muted
        }
    }

    /// The suggestions the figures of `apps` make, in their order (busiest first), at most one
    /// of each kind per app; none for the bridge's own notifications, none from fewer
    /// notifications than each kind's threshold, none already in effect (`current`).
    /// `days`: the period's length, for the words; `summaryScheduled`: `[summary] times` is set.
    public static func suggestions(for apps: [(app: String, counts: ActivityCounts)], days: Int,
                                   summaryScheduled: Bool, current: (String) -> Current) -> [Suggestion] {
        var suggestions: [Suggestion] = []
        let period = days == 1 ? "in the last day" : "in the last \(days) days"
        for (app, counts) in apps where app != Fate.ownApp {
            let now = current(app)
            // Time-sensitive notifications mostly left alone.
            let sensitive = ActivityCounts.decided(counts.timeSensitiveOutcomes)
            let sensitiveActed = counts.timeSensitiveOutcomes[.acted, default: 0]
            if now.rule.timeSensitive, sensitive >= fewestTimeSensitive,
               Double(sensitiveActed) < rarelyActed * Double(sensitive) {
                suggestions.append(Suggestion(
                    app: app, kind: .timeSensitiveOff,
                    why: "\(app) sent \(counts.timeSensitive) Time Sensitive notification\(plural(counts.timeSensitive)) \(period); "
                        + "you acted on \(sensitiveActed) and dismissed or let expire \(sensitive - sensitiveActed): turned off, "
                        + "they arrive as ordinary ones and no longer break through a Focus",
                    command: command(["focusctl", "app"], app, ["time-sensitive", "off"])))
            }
            // Mostly dismissed or expired: better read together, in the summary.
            let decided = ActivityCounts.decided(counts.outcomes)
            let ignored = counts.outcomes[.dismissed, default: 0] + counts.outcomes[.expired, default: 0]
            let holdable = counts.levels[.passive, default: 0] + counts.levels[.active, default: 0]
            let summary = now.rule.delivery == .immediate && decided >= fewestForSummary
                && Double(ignored) >= mostlyIgnored * Double(decided) && 2 * holdable >= counts.total
            if summary {
                suggestions.append(Suggestion(
                    app: app, kind: .summary,
                    why: "you dismissed or let expire \(ignored) of the notifications of \(app) \(period) and acted on "
                        + "\(decided - ignored): held for the scheduled summary, they come together"
                        + (summaryScheduled ? "" : " (no [summary] times are set: set them first, or they wait for "
                           + "`focusctl summary deliver`)"),
                    command: command(["focusctl", "app"], app, ["delivery", "summary"])))
            }
            // Bursts: quieter, or quiet for a while when quiet already; held for the summary,
            // they would come together anyway.
            if counts.bursts >= fewestBursts && !summary {
                let bursts = "\(app) sent \(burstSize) or more notifications within a minute \(counts.bursts) times \(period)"
                // Mostly passive when they came: nothing lower is left but quiet. Otherwise passive,
                // unless it is passive now (the figures are from before the change).
                if 2 * counts.levels[.passive, default: 0] < counts.total {
                    if now.rule.level != .passive {
                        suggestions.append(Suggestion(
                            app: app, kind: .passive,
                            why: bursts + ": at the passive level they come without sound, urgency 0",
                            command: command(["focusctl", "app"], app, ["level", "passive"])))
                    }
                } else if !now.muted {
                    suggestions.append(Suggestion(
                        app: app, kind: .mute,
                        why: bursts + ", passive already: muted for a day, they are kept in history and never shown",
                        command: command(["focusctl", "mute", "--for", "1d"], app, [])))
                }
            }
        }
        return suggestions
    }

    private static func plural(_ count: Int) -> String { count == 1 ? "" : "s" }

    /// A command line a person can paste: the app quoted for the shell, after `--` when it would
    /// read as an option (options go in `head`, before it).
    private static func command(_ head: [String], _ app: String, _ tail: [String]) -> String {
        ProcessCommandLine.shellLine(head + (app.hasPrefix("-") ? ["--", app] : [app]) + tail)
    }
}
