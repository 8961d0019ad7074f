import FocusBridgeCore
import FocusBridgeTOML

/// Reads the parsed TOML tables into `Configuration`, checking names, types and values as it
/// goes; the first problem found is thrown with its position: the value's own (an element's, in
/// an array), or the key's when the name is the problem.
struct TableReader {
    let path: String
    let root: TOMLTable

    func configuration() throws(ConfigError) -> Configuration {
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
            if let times = try stringElements(table, ["summary"], "times") {
                configuration.policy.summaryTimes = try times.map { element throws(ConfigError) in
                    try time(element.text, element.position)
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
            throw nameError(at, "silence", "a Focus takes `apps` (allowed apps) or `silence` (all but these), not both")
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
            for entry in entries.elements {
                guard let entryTable = entry.value.table else {
                    throw error(entry.position, "each `schedule` entry must be a table with days, start and end")
                }
                focus.schedule.append(try scheduleEntry(entryTable, at + ["schedule"]))
            }
        }
        return focus
    }

    private func scheduleEntry(_ table: TOMLTable, _ at: [String]) throws(ConfigError) -> ScheduleEntry {
        try checkKeys(table, at, Schema.scheduleKeys)
        var days = Set(Weekday.allCases)
        if let names = try stringElements(table, at, "days") {
            days = []
            for name in names {
                guard let day = Weekday(name: name.text) else {
                    throw error(name.position, "unknown day \"\(name.text)\" (expected mon, tue, wed, thu, fri, sat or sun)")
                }
                days.insert(day)
            }
        }
        guard let startText = try string(table, at, "start") else {
            throw error(table.position, "a schedule entry needs `start`")
        }
        guard let endText = try string(table, at, "end") else {
            throw error(table.position, "a schedule entry needs `end`")
        }
        let start = try time(startText, table.entry("start")!.valuePosition)
        let end = try time(endText, table.entry("end")!.valuePosition)
        if start == end { throw error(table.entry("end")!.valuePosition, "`start` and `end` are the same time") }
        return ScheduleEntry(days: days, start: start, end: end)
    }

    // MARK: Typed values

    private func subtable(_ parent: TOMLTable, _ at: [String], _ key: String) throws(ConfigError) -> TOMLTable? {
        guard let entry = parent.entry(key) else { return nil }
        guard let table = entry.value.table else {
            throw error(entry.valuePosition, "`\(key)` must be a table, not \(entry.value.typeName)")
        }
        return table
    }

    private func string(_ table: TOMLTable, _ at: [String], _ key: String) throws(ConfigError) -> String? {
        guard let entry = table.entry(key) else { return nil }
        guard let text = entry.value.string else {
            throw error(entry.valuePosition, "`\(key)` must be a string, not \(entry.value.typeName)")
        }
        return text
    }

    private func bool(_ table: TOMLTable, _ at: [String], _ key: String) throws(ConfigError) -> Bool? {
        guard let entry = table.entry(key) else { return nil }
        guard let flag = entry.value.boolean else {
            throw error(entry.valuePosition, "`\(key)` must be true or false, not \(entry.value.typeName)")
        }
        return flag
    }

    private func integer(_ table: TOMLTable, _ at: [String], _ key: String) throws(ConfigError) -> Int? {
        guard let entry = table.entry(key) else { return nil }
        guard let number = entry.value.integer.flatMap({ Int(exactly: $0) }) else {
            throw error(entry.valuePosition, "`\(key)` must be a whole number, not \(entry.value.typeName)")
        }
        return number
    }

    private func strings(_ table: TOMLTable, _ at: [String], _ key: String) throws(ConfigError) -> [String]? {
        try stringElements(table, at, key)?.map(\.text)
    }

    /// An array of strings, each with its position.
    private func stringElements(_ table: TOMLTable, _ at: [String], _ key: String) throws(ConfigError) -> [(text: String, position: TOMLPosition)]? {
        guard let entry = table.entry(key) else { return nil }
        guard let array = entry.value.array else {
            throw error(entry.valuePosition, "`\(key)` must be an array of strings, not \(entry.value.typeName)")
        }
        var result: [(text: String, position: TOMLPosition)] = []
        for element in array.elements {
            guard let text = element.value.string else {
                throw error(element.position, "`\(key)` must be an array of strings, not one with \(element.value.typeName)")
            }
            result.append((text, element.position))
        }
        return result
    }

    private func choice<T: RawRepresentable & CaseIterable>(_ text: String, _ at: [String], _ key: String,
                                                              _ type: T.Type) throws(ConfigError) -> T where T.RawValue == String {
        if let value = T(rawValue: text) { return value }
        let options = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        var message = "`\(key)` must be one of \(options), not \"\(text)\""
        if let suggestion = ClosestName.to(text, among: T.allCases.map(\.rawValue)) {
            message += "; did you mean \"\(suggestion)\"?"
        }
        throw error(at, key, message)
    }

    private func time(_ text: String, _ position: TOMLPosition) throws(ConfigError) -> TimeOfDay {
        guard let time = TimeOfDay(text) else {
            throw error(position, "\"\(text)\" is not a time of day (expected HH:MM, 00:00 to 23:59)")
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
        for entry in table.entries where !known.contains(entry.key) {
            var message = "unknown \(what) `\(entry.key)`" + (at.isEmpty ? "" : " in [\(at.joined(separator: "."))]")
            if let suggestion = ClosestName.to(entry.key, among: known) { message += "; did you mean `\(suggestion)`?" }
            throw error(entry.keyPosition, message)
        }
    }

    /// The table at `at`, from the root.
    private func table(_ at: [String]) -> TOMLTable? {
        var table = root
        for name in at {
            guard let inner = table[name]?.table else { return nil }
            table = inner
        }
        return table
    }

    /// An error at the value of `key` in the table at `at`, or at that table when `key` is nil.
    private func error(_ at: [String], _ key: String?, _ message: String) -> ConfigError {
        let table = table(at)
        return error(key.flatMap { table?.entry($0)?.valuePosition } ?? table?.position ?? root.position, message)
    }

    /// An error at the name `key` in the table at `at`: for a problem with the key being there at all.
    private func nameError(_ at: [String], _ key: String, _ message: String) -> ConfigError {
        let table = table(at)
        return error(table?.entry(key)?.keyPosition ?? table?.position ?? root.position, message)
    }

    private func error(_ position: TOMLPosition, _ message: String) -> ConfigError {
        ConfigError(path: path, line: position.line, column: position.column, message: message)
    }
}
