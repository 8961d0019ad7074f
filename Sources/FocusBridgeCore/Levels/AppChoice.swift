import FocusBridgeTime

/// A setting the person chose for one app while the bridge runs (`focusctl app`, a quick action
/// on a notification, the first-Time-Sensitive question). It wins over the configuration file
/// for its key until it is reset (focusctl(1), APPS; focus-bridge.toml(5), APPS).
public enum AppChoice: Equatable, Sendable {
    case timeSensitive(Bool)
    case delivery(AppDelivery)
    case marketing(Bool)
    /// A level forced on every notification of the app, as `[apps] level` forces it.
    case level(InterruptionLevel)

    /// The keys a choice can be made for, as `focusctl app NAME KEY VALUE` spells them.
    public enum Key: String, CaseIterable, Codable, Sendable {
        case timeSensitive = "time-sensitive"
        case delivery
        case marketing
        case level
    }

    public var key: Key {
        switch self {
        case .timeSensitive: .timeSensitive
        case .delivery: .delivery
        case .marketing: .marketing
        case .level: .level
        }
    }

    /// The value as written on the command line and in the store.
    public var value: String {
        switch self {
        case .timeSensitive(let on), .marketing(let on): on ? "on" : "off"
        case .delivery(let delivery): delivery.rawValue
        case .level(let level): level.rawValue
        }
    }

    /// Reads `KEY VALUE`; nil with the reason when the value does not fit the key.
    public static func parse(key: Key, value: String) -> Result<AppChoice, ChoiceError> {
        switch key {
        case .timeSensitive, .marketing:
            guard let on = ["on": true, "off": false][value.lowercased()] else {
                return .failure(ChoiceError("`\(key.rawValue)` is on or off, not \"\(value)\""))
            }
            return .success(key == .timeSensitive ? .timeSensitive(on) : .marketing(on))
        case .delivery:
            guard let delivery = AppDelivery(rawValue: value.lowercased()) else {
                let all = AppDelivery.allCases.map(\.rawValue).joined(separator: ", ")
                return .failure(ChoiceError("`delivery` is one of \(all), not \"\(value)\""))
            }
            return .success(.delivery(delivery))
        case .level:
            guard let level = InterruptionLevel(rawValue: value.lowercased()) else {
                let all = InterruptionLevel.allCases.map(\.rawValue).joined(separator: ", ")
                return .failure(ChoiceError("`level` is one of \(all), not \"\(value)\""))
            }
            return .success(.level(level))
        }
    }

    /// The choice put into a rule read from the file.
    func apply(to rule: inout AppRule) {
        switch self {
        case .timeSensitive(let on): rule.timeSensitive = on
        case .delivery(let delivery): rule.delivery = delivery
        case .marketing(let on): rule.marketing = on
        case .level(let level): rule.level = level
        }
    }
}

/// Why a choice cannot be made, as one sentence.
public struct ChoiceError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Where an app's effective setting comes from, for `focusctl apps` and the decision trace.
public enum SettingOrigin: Equatable, Sendable {
    case byDefault
    /// `[apps."KEY"]` in the configuration file, at this line.
    case config(line: Int)
    /// Chosen at run time, at this moment.
    case choice(made: Instant)
}

/// Every app's choices, by app key (without regard to case), with when each was made; and the
/// apps already asked about Time Sensitive (asked once per app, ever).
public struct AppChoices: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public var app: String
        public var choice: AppChoice
        public var made: Instant

        public init(app: String, choice: AppChoice, made: Instant) {
            self.app = app
            self.choice = choice
            self.made = made
        }
    }

    /// The most apps with choices kept: what we keep is bounded; past it the oldest are forgotten.
    public static let maxApps = 1000

    private var entries: [String: [AppChoice.Key: Entry]] = [:]
    /// Apps asked about Time Sensitive (by lowercased key), with the app as spelt and the answer
    /// (`asked`, `keep`, `turn-off`, or `pending` while the question waits for a Focus to end).
    public private(set) var asked: [String: (app: String, answer: String)] = [:]

    public init(_ entries: [Entry] = [], asked: [String: String] = [:]) {
        for entry in entries { set(entry) }
        for (app, answer) in asked { self.asked[app.lowercased()] = (app, answer) }
    }

    public static func == (lhs: AppChoices, rhs: AppChoices) -> Bool {
        lhs.entries == rhs.entries && lhs.asked.mapValues { "\($0.app)\u{0}\($0.answer)" } == rhs.asked.mapValues { "\($0.app)\u{0}\($0.answer)" }
    }

    /// The apps whose question waits for a Focus to end, as spelt.
    public var pendingQuestions: [String] { asked.values.filter { $0.answer == "pending" }.map(\.app).sorted() }

    public var all: [Entry] {
        entries.values.flatMap(\.values).sorted { ($0.app.lowercased(), $0.choice.key.rawValue) < ($1.app.lowercased(), $1.choice.key.rawValue) }
    }

    public func choices(for app: String) -> [AppChoice.Key: Entry] {
        entries.isEmpty ? [:] : entries[app.lowercasedCheaply()] ?? [:]
    }

    public func choice(_ key: AppChoice.Key, for app: String) -> Entry? { entries[app.lowercased()]?[key] }

    public mutating func set(_ entry: Entry) {
        let app = entry.app.lowercased()
        if entries[app] == nil, entries.count >= Self.maxApps,
           let oldest = entries.min(by: { ($0.value.values.map(\.made).max() ?? .distantPast) < ($1.value.values.map(\.made).max() ?? .distantPast) }) {
            entries[oldest.key] = nil
        }
        entries[app, default: [:]][entry.choice.key] = entry
    }

    /// Resets one key (or every key when nil); returns what was reset.
    @discardableResult
    public mutating func reset(app: String, key: AppChoice.Key? = nil) -> [Entry] {
        let lowered = app.lowercased()
        guard let current = entries[lowered] else { return [] }
        if let key {
            guard let entry = current[key] else { return [] }
            entries[lowered]?[key] = nil
            if entries[lowered]?.isEmpty == true { entries[lowered] = nil }
            return [entry]
        }
        entries[lowered] = nil
        return current.values.sorted { $0.choice.key.rawValue < $1.choice.key.rawValue }
    }

    public func wasAsked(_ app: String) -> String? { asked[app.lowercased()]?.answer }

    /// Notes the answer; past `maxApps * 10` apps asked, a new one is not noted (it may be asked
    /// again after a restart, which is better than an unbounded table).
    public mutating func noteAsked(_ app: String, answer: String) {
        if asked.count >= Self.maxApps * 10, asked[app.lowercased()] == nil { return }
        asked[app.lowercased()] = (app, answer)
    }

    /// The rule the file gives an app with the person's choices put in, and a trace line for each.
    public func apply(to rule: AppRule, app: String) -> (rule: AppRule, trace: [String]) {
        let choices = choices(for: app)
        // None for this app (nearly always on the way of a `Notify`): nothing sorted.
        guard !choices.isEmpty else { return (rule, []) }
        var rule = rule
        var trace: [String] = []
        for entry in choices.values.sorted(by: { $0.choice.key.rawValue < $1.choice.key.rawValue }) {
            entry.choice.apply(to: &rule)
            rule.origins[entry.choice.key.rawValue] = .choice(made: entry.made)
            trace.append("choice: \(entry.choice.key.rawValue) \(entry.choice.value) for \(app) (chosen \(Fate.localDateTime(entry.made)); "
                         + "wins over the configuration until `focusctl app \(app) reset \(entry.choice.key.rawValue)`)")
        }
        return (rule, trace)
    }
}
