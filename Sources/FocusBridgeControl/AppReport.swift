import FocusBridgeCore
import FocusBridgeTime

/// `focusctl apps --json`: one entry per app seen, with what it sent lately and its effective
/// settings, each with where it comes from (focusctl(1), APPS).
public struct AppReport: Codable, Equatable, Sendable {
    /// One effective setting.
    public struct Setting: Codable, Equatable, Sendable {
        public var value: String
        /// `default`, `config` or `choice`.
        public var source: String
        /// For `config`: `PATH:LINE`.
        @Nullable public var at: String?
        /// For `choice`: when it was made.
        @Nullable public var made: String?

        public init(value: String, origin: SettingOrigin, configPath: String) {
            self.value = value
            switch origin {
            case .byDefault: source = "default"
            case .config(let line):
                source = "config"
                at = "\(configPath):\(line)"
            case .choice(let date):
                source = "choice"
                made = Timestamp.string(date)
            }
        }

        /// How `focusctl apps` and `focusctl app` print it: `off (choice, 2026-11-22T10:00:00Z)`.
        public var text: String {
            switch source {
            case "config": "\(value) (config \(at ?? ""))"
            case "choice": "\(value) (choice, \(made ?? ""))"
            default: "\(value) (default)"
            }
        }
    }

    /// How many days of history the counts cover.
    public static let days = 7
    /// The settings listed, in order.
    public static let keys = ["delivery", "time-sensitive", "marketing", "level", "critical", "communication", "previews",
                              "quick-actions"]

    public var app: String
    /// Notifications in the last `days` days: all, by level, by decision.
    public var total: Int
    public var levels: [String: Int]
    public var decisions: [String: Int]
    public var settings: [String: Setting]
    @Nullable public var mutedUntil: String?
    /// The answer to the first-Time-Sensitive question (`asked`, `keep`, `turn-off`, `pending`).
    @Nullable public var timeSensitiveQuestion: String?
    /// The app names unsandboxed senders sent under this key lately, when not the key itself,
    /// most used first (Firefox ESR: `firefox-esr` is named `Firefox`).
    public var names: [String] = []
    /// The `[apps]` table that applies, as written; null for none.
    @Nullable public var table: String?
    /// What the table matched: `app key` or `app name`; null for none.
    @Nullable public var matched: String?
    /// A configured `[apps]` table nothing was sent under, by key or by name, in the last `days` days.
    public var quiet = false
    /// For a site (a web page's app key): the browsers its notifications came through lately,
    /// most used first; empty for any other app.
    public var via: [String] = []

    enum CodingKeys: String, CodingKey {
        case app, total, levels, decisions, settings, names, table, matched, quiet, via
        case mutedUntil = "muted-until"
        case timeSensitiveQuestion = "time-sensitive-question"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        app = try container.decode(String.self, forKey: .app)
        total = try container.decode(Int.self, forKey: .total)
        levels = try container.decode([String: Int].self, forKey: .levels)
        decisions = try container.decode([String: Int].self, forKey: .decisions)
        settings = try container.decode([String: Setting].self, forKey: .settings)
        mutedUntil = try container.decodeIfPresent(String.self, forKey: .mutedUntil)
        timeSensitiveQuestion = try container.decodeIfPresent(String.self, forKey: .timeSensitiveQuestion)
        names = try container.decodeIfPresent([String].self, forKey: .names) ?? []
        table = try container.decodeIfPresent(String.self, forKey: .table)
        matched = try container.decodeIfPresent(String.self, forKey: .matched)
        quiet = try container.decodeIfPresent(Bool.self, forKey: .quiet) ?? false
        via = try container.decodeIfPresent([String].self, forKey: .via) ?? []
    }

    /// The most apps one answer lists: any client can send under any name, and the answer is
    /// built on the main loop.
    public static let maxApps = 1000

    /// Every app seen in `counts` (history), in the configuration's `[apps]`, with a choice or a
    /// mute, sorted by name without regard to case; at most `limit` of them: those in the
    /// configuration, with a choice or a mute first, then those that sent the most.
    /// `names`: the app names sent under each key (`Store.appNames`); `vias`: the browsers each
    /// site's notifications came through (`Store.appVias`).
    public static func all(counts: [(app: String, level: String, decision: String, count: Int)],
                           names sentNames: [(app: String, name: String, count: Int)] = [],
                           vias: [(app: String, via: String, count: Int)] = [], policy: PolicySettings,
                           configPath: String, choices: AppChoices, mutes: MuteList, now: Instant,
                           limit: Int = maxApps) -> [AppReport] {
        // Every name something was sent under lately, key or app name, lowered.
        var sentUnder = Set(counts.lazy.filter { $0.count > 0 }.map { $0.app.lowercased() })
        // The app names of each key, grouped once (not searched for each app).
        var namesOf: [String: [(name: String, count: Int)]] = [:]
        for sent in sentNames {
            sentUnder.insert(sent.name.lowercased())
            namesOf[sent.app.lowercased(), default: []].append((sent.name, sent.count))
        }
        var viasOf: [String: [(name: String, count: Int)]] = [:]
        for sent in vias { viasOf[sent.app.lowercased(), default: []].append((sent.via, sent.count)) }
        var names: [String: String] = [:]
        var rows: [String: [(level: String, decision: String, count: Int)]] = [:]
        var named: Set<String> = []
        func see(_ app: String) { if names[app.lowercased()] == nil { names[app.lowercased()] = app } }
        func name(_ app: String) {
            see(app)
            named.insert(app.lowercased())
        }
        for row in counts {
            see(row.app)
            rows[row.app.lowercased(), default: []].append((row.level, row.decision, row.count))
        }
        policy.apps.keys.sorted().forEach(name)
        choices.all.forEach { name($0.app) }
        mutes.active(at: now).forEach { name($0.app) }
        var listed = Array(names)
        if listed.count > limit {
            let totals = rows.mapValues { $0.reduce(0) { $0 + $1.count } }
            listed.sort { a, b in
                let (namedA, namedB) = (named.contains(a.key), named.contains(b.key))
                if namedA != namedB { return namedA }
                let (totalA, totalB) = (totals[a.key] ?? 0, totals[b.key] ?? 0)
                return totalA != totalB ? totalA > totalB : a.key < b.key
            }
            listed.removeLast(listed.count - limit)
        }
        let context = PolicyContext(settings: policy, now: now, choices: choices, mutes: mutes)
        return listed.sorted { $0.key < $1.key }.map { lowered, app in
            var report = AppReport(app: app, total: 0, levels: [:], decisions: [:], settings: [:])
            for row in rows[lowered] ?? [] {
                report.total += row.count
                report.levels[row.level, default: 0] += row.count
                report.decisions[row.decision, default: 0] += row.count
            }
            report.names = mostUsedFirst(namesOf[lowered] ?? [])
            report.via = mostUsedFirst(viasOf[lowered] ?? [])
            // The rule the daemon gives the key's notifications under its most used name.
            let (rule, _, table) = context.rule(for: AppIdentity(key: app, source: .appName, name: report.names.first))
            report.table = table?.name
            report.matched = table.map { $0.byName ? "app name" : "app key" }
            report.quiet = policy.hasRule(forApp: app) && !sentUnder.contains(lowered)
            let general = policy.general
            func setting(_ key: String, _ value: String) { report.settings[key] = Setting(value: value, origin: rule.origin(of: key), configPath: configPath) }
            setting("delivery", rule.delivery.rawValue)
            setting("time-sensitive", rule.timeSensitive ? "on" : "off")
            setting("marketing", rule.marketing ? "on" : "off")
            setting("level", rule.level?.rawValue ?? "from the notification")
            setting("critical", rule.critical ? "on" : "off")
            setting("communication", rule.communication ? "on" : "off")
            setting("previews", (rule.previews ?? general.previews).rawValue)
            setting("quick-actions", (rule.quickActions ?? general.quickActions).map(\.rawValue).joined(separator: ", "))
            report.mutedUntil = mutes.mutedUntil(app, at: now).map(Timestamp.string)
            report.timeSensitiveQuestion = choices.wasAsked(app)
            return report
        }
    }

    private static func mostUsedFirst(_ names: [(name: String, count: Int)]) -> [String] {
        names.sorted { $0.count != $1.count ? $0.count > $1.count : $0.name < $1.name }.map(\.name)
    }

    init(app: String, total: Int, levels: [String: Int], decisions: [String: Int], settings: [String: Setting]) {
        self.app = app
        self.total = total
        self.levels = levels
        self.decisions = decisions
        self.settings = settings
    }
}

/// What `SetAppChoice`, `ResetAppChoice`, `Mute` and `Unmute` answer: the app's entry after the
/// change, and one sentence that says what was done.
public struct AppChangeReport: Codable, Equatable, Sendable {
    public var app: AppReport
    public var message: String

    public init(app: AppReport, message: String) {
        self.app = app
        self.message = message
    }
}

/// One mute, in `focusctl status --json` (`mutes`).
public struct MuteReport: Codable, Equatable, Sendable {
    public var app: String
    public var until: String

    public init(_ mute: MuteList.Mute) {
        app = mute.app
        until = Timestamp.string(mute.until)
    }
}
