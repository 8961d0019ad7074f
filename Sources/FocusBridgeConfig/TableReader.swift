import FocusBridgeCore
import TOMLKit

/// Reads the parsed TOML tables into `Configuration`, checking names, types and values as it
/// goes; the first problem found is thrown with its position.
struct TableReader {
    let path: String
    let locator: SourceLocator

    func configuration(from root: TOMLTable) throws(ConfigError) -> Configuration {
        var configuration = Configuration()
        try checkKeys(root, [], Schema.tables, what: "table")
        if let table = try subtable(root, [], "downstream") {
            configuration.downstream = try downstream(table)
        }
        if let table = try subtable(root, [], "general") {
            configuration.policy.general = try general(table)
        }
        if let table = try subtable(root, [], "summary") {
            try checkKeys(table, ["summary"], Schema.summaryKeys)
            if let times = try strings(table, ["summary"], "times") {
                configuration.policy.summaryTimes = try times.map { text throws(ConfigError) in
                    try time(text, ["summary"], "times")
                }.sorted()
            }
        }
        if let apps = try subtable(root, [], "apps") {
            try checkUnique(apps.keys, ["apps"], what: "app keys")
            for key in apps.keys {
                guard let table = try subtable(apps, ["apps"], key) else { continue }
                configuration.policy.apps[key] = try appRule(table, ["apps", key])
            }
        }
        if let focuses = try subtable(root, [], "focus") {
            try checkUnique(focuses.keys, ["focus"], what: "Focus names")
            for name in focuses.keys {
                guard let table = try subtable(focuses, ["focus"], name) else { continue }
                configuration.policy.focuses.append(try focus(name, table))
            }
        }
        return configuration
    }

    // MARK: Tables

    private func downstream(_ table: TOMLTable) throws(ConfigError) -> DownstreamSettings {
        let at = ["downstream"]
        try checkKeys(table, at, Schema.downstreamKeys)
        var settings = DownstreamSettings()
        if let mode = try string(table, at, "mode") {
            settings.mode = try choice(mode, at, "mode", DownstreamSettings.Mode.self)
        }
        if let command = try strings(table, at, "command") {
            guard !command.isEmpty else { throw error(at, "command", "`command` must name a program") }
            settings.command = command
        }
        settings.name = try string(table, at, "name")
        settings.address = try string(table, at, "address")
        settings.passthroughNames = try strings(table, at, "passthrough-names") ?? []
        if let names = try strings(table, at, "session-names") {
            for name in names {
                if let problem = SessionNames.problem(with: name, passthroughNames: settings.passthroughNames) {
                    throw error(at, "session-names", "`session-names`: \(problem)")
                }
            }
            settings.sessionNames = names
        }
        return settings
    }

    private func general(_ table: TOMLTable) throws(ConfigError) -> GeneralSettings {
        let at = ["general"]
        try checkKeys(table, at, Schema.generalKeys)
        var settings = GeneralSettings()
        if let previews = try string(table, at, "previews") { settings.previews = try choice(previews, at, "previews", PreviewMode.self) }
        if let maximum = try integer(table, at, "max-actions") {
            guard (0...ActionNormaliser.buttonLimit).contains(maximum) else {
                throw error(at, "max-actions", "`max-actions` must be from 0 to \(ActionNormaliser.buttonLimit), not \(maximum)")
            }
            settings.maxActions = maximum
        }
        if let labels = try strings(table, at, "destructive-labels") { settings.destructiveLabels = labels }
        if let marker = try string(table, at, "destructive-marker") { settings.destructiveMarker = marker }
        if let seconds = try integer(table, at, "coalesce-seconds") {
            guard (0...86_400).contains(seconds) else {
                throw error(at, "coalesce-seconds", "`coalesce-seconds` must be from 0 to 86400 (a day)")
            }
            settings.coalesceSeconds = seconds
        }
        if let after = try string(table, at, "after-focus") { settings.afterFocus = try choice(after, at, "after-focus", AfterFocus.self) }
        if let days = try integer(table, at, "history-days") {
            guard days >= 1 else { throw error(at, "history-days", "`history-days` must be at least 1") }
            settings.historyDays = days
        }
        if let limit = try integer(table, at, "rate-limit") {
            guard limit >= 0 else { throw error(at, "rate-limit", "`rate-limit` must not be negative (0 turns it off)") }
            settings.rateLimit = limit
        }
        if let seconds = try integer(table, at, "rate-limit-seconds") {
            guard (1...86_400).contains(seconds) else {
                throw error(at, "rate-limit-seconds", "`rate-limit-seconds` must be from 1 to 86400 (a day)")
            }
            settings.rateLimitSeconds = seconds
        }
        return settings
    }

    private func appRule(_ table: TOMLTable, _ at: [String]) throws(ConfigError) -> AppRule {
        try checkKeys(table, at, Schema.appKeys)
        var rule = AppRule()
        if let delivery = try string(table, at, "delivery") { rule.delivery = try choice(delivery, at, "delivery", AppDelivery.self) }
        if let level = try string(table, at, "level") { rule.level = try choice(level, at, "level", InterruptionLevel.self) }
        if let flag = try bool(table, at, "time-sensitive") { rule.timeSensitive = flag }
        if let flag = try bool(table, at, "critical") { rule.critical = flag }
        if let flag = try bool(table, at, "communication") { rule.communication = flag }
        if let previews = try string(table, at, "previews") { rule.previews = try choice(previews, at, "previews", PreviewMode.self) }
        return rule
    }

    private func focus(_ name: String, _ table: TOMLTable) throws(ConfigError) -> FocusProfile {
        let at = ["focus", name]
        try checkKeys(table, at, Schema.focusKeys)
        var focus = FocusProfile(name: name)
        let apps = try strings(table, at, "apps")
        let silence = try strings(table, at, "silence")
        if apps != nil && silence != nil {
            throw error(at, "silence", "a Focus takes `apps` (allowed apps) or `silence` (all but these), not both")
        }
        if let apps { focus.apps = .allowOnly(apps) }
        if let silence { focus.apps = .silence(silence) }
        focus.people = try strings(table, at, "people") ?? []
        if let flag = try bool(table, at, "time-sensitive") { focus.timeSensitive = flag }
        if let previews = try string(table, at, "previews") { focus.previews = try choice(previews, at, "previews", PreviewMode.self) }
        if let value = table["schedule"] {
            guard let entries = value.array else {
                throw error(at, "schedule", "`schedule` must be an array of tables ([[focus.\(name).schedule]])")
            }
            for (index, entry) in entries.enumerated() {
                guard let entryTable = entry.table else {
                    throw error(at, "schedule", "each `schedule` entry must be a table with days, start and end")
                }
                focus.schedule.append(try scheduleEntry(entryTable, at + ["schedule"], occurrence: index))
            }
        }
        return focus
    }

    private func scheduleEntry(_ table: TOMLTable, _ at: [String], occurrence: Int) throws(ConfigError) -> ScheduleEntry {
        for key in table.keys where !Schema.scheduleKeys.contains(key) {
            throw unknown(key, among: Schema.scheduleKeys, at: at, occurrence: occurrence, what: "key")
        }
        var days = Set(Weekday.allCases)
        if let names = try strings(table, at, "days", occurrence: occurrence) {
            days = []
            for name in names {
                guard let day = Weekday(name: name) else {
                    throw error(at, "days", "unknown day \"\(name)\" (expected mon, tue, wed, thu, fri, sat or sun)", occurrence: occurrence)
                }
                days.insert(day)
            }
        }
        guard let startText = try string(table, at, "start", occurrence: occurrence) else {
            throw error(at, nil, "a schedule entry needs `start`", occurrence: occurrence)
        }
        guard let endText = try string(table, at, "end", occurrence: occurrence) else {
            throw error(at, nil, "a schedule entry needs `end`", occurrence: occurrence)
        }
        let start = try time(startText, at, "start", occurrence: occurrence)
        let end = try time(endText, at, "end", occurrence: occurrence)
        if start == end { throw error(at, "end", "`start` and `end` are the same time", occurrence: occurrence) }
        return ScheduleEntry(days: days, start: start, end: end)
    }

    // MARK: Typed values

    private func subtable(_ parent: TOMLTable, _ at: [String], _ key: String) throws(ConfigError) -> TOMLTable? {
        guard let value = parent[key] else { return nil }
        guard let table = value.table else {
            throw error(at, key, "`\(key)` must be a table, not \(value.type)")
        }
        return table
    }

    private func string(_ table: TOMLTable, _ at: [String], _ key: String, occurrence: Int = 0) throws(ConfigError) -> String? {
        guard let value = table[key] else { return nil }
        guard let text = value.string else {
            throw error(at, key, "`\(key)` must be a string, not \(value.type)", occurrence: occurrence)
        }
        return text
    }

    private func bool(_ table: TOMLTable, _ at: [String], _ key: String) throws(ConfigError) -> Bool? {
        guard let value = table[key] else { return nil }
        guard let flag = value.bool else { throw error(at, key, "`\(key)` must be true or false, not \(value.type)") }
        return flag
    }

    private func integer(_ table: TOMLTable, _ at: [String], _ key: String) throws(ConfigError) -> Int? {
        guard let value = table[key] else { return nil }
        guard let number = value.int else { throw error(at, key, "`\(key)` must be a whole number, not \(value.type)") }
        return number
    }

    private func strings(_ table: TOMLTable, _ at: [String], _ key: String, occurrence: Int = 0) throws(ConfigError) -> [String]? {
        guard let value = table[key] else { return nil }
        guard let array = value.array else {
            throw error(at, key, "`\(key)` must be an array of strings, not \(value.type)", occurrence: occurrence)
        }
        var result: [String] = []
        for element in array {
            guard let text = element.string else {
                throw error(at, key, "`\(key)` must be an array of strings", occurrence: occurrence)
            }
            result.append(text)
        }
        return result
    }

    private func choice<T: RawRepresentable & CaseIterable>(_ text: String, _ at: [String], _ key: String,
                                                              _ type: T.Type) throws(ConfigError) -> T where T.RawValue == String {
        if let value = T(rawValue: text) { return value }
        let options = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        var message = "`\(key)` must be one of \(options), not \"\(text)\""
        if let suggestion = Suggestion.closest(to: text, among: T.allCases.map(\.rawValue)) {
            message += "; did you mean \"\(suggestion)\"?"
        }
        throw error(at, key, message)
    }

    private func time(_ text: String, _ at: [String], _ key: String, occurrence: Int = 0) throws(ConfigError) -> TimeOfDay {
        guard let time = TimeOfDay(text) else {
            throw error(at, key, "\"\(text)\" is not a time of day (expected HH:MM, 00:00 to 23:59)", occurrence: occurrence)
        }
        return time
    }

    // MARK: Errors

    /// App keys and Focus names ignore case, so two that differ only in case would be ambiguous.
    private func checkUnique(_ keys: [String], _ at: [String], what: String) throws(ConfigError) {
        var seen: [String: String] = [:]
        for key in keys {
            if let first = seen[key.lowercased()] {
                throw error(at + [key], nil, "[\(at.joined(separator: ".")).\"\(key)\"] repeats [\(at.joined(separator: ".")).\"\(first)\"] (\(what) ignore case)")
            }
            seen[key.lowercased()] = key
        }
    }

    private func checkKeys(_ table: TOMLTable, _ at: [String], _ known: [String], what: String = "key") throws(ConfigError) {
        for key in table.keys where !known.contains(key) {
            throw unknown(key, among: known, at: at, occurrence: 0, what: what)
        }
    }

    private func unknown(_ key: String, among known: [String], at: [String], occurrence: Int, what: String) -> ConfigError {
        var message = "unknown \(what) `\(key)`" + (at.isEmpty ? "" : " in [\(at.joined(separator: "."))]")
        if let suggestion = Suggestion.closest(to: key, among: known) { message += "; did you mean `\(suggestion)`?" }
        // An unknown table is found by its header; an unknown key by its line.
        var position = locator.position(table: at, occurrence: occurrence, key: key)
        if position == (1, 1) { position = locator.position(table: at + [key]) }
        return ConfigError(path: path, line: position.line, column: position.column, message: message)
    }

    private func error(_ at: [String], _ key: String?, _ message: String, occurrence: Int = 0) -> ConfigError {
        var position = locator.position(table: at, occurrence: occurrence, key: key)
        if position == (1, 1), let key { position = locator.position(table: at + [key]) }
        return ConfigError(path: path, line: position.line, column: position.column, message: message)
    }
}
