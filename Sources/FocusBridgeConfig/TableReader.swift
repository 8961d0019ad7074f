import FocusBridgeCore
import FocusBridgeTOML
import FocusBridgeTime

/// Reads the parsed TOML tables into `Configuration`, checking names, types and values as it
/// goes. A problem is noted with its position (the value's own, an element's in an array, or the
/// key's when the name is the problem) and the reading goes on: a value found wrong is left at
/// its default, and the rest of the file is still checked, so that every mistake is reported in
/// one run. Any problem refuses the whole file.
final class TableReader {
    let path: String
    let root: TOMLTable
    private var problems: [ConfigError.Problem] = []

    init(path: String, root: TOMLTable) {
        self.path = path
        self.root = root
    }

    func configuration() throws(ConfigError) -> Configuration {
        var configuration = Configuration()
        checkTopLevel()
        if let table = subtable(root, "downstream") {
            configuration.downstream = downstream(table)
        }
        if let table = subtable(root, "general") {
            configuration.policy.general = general(table)
        }
        if let table = subtable(root, "summary") {
            checkKeys(table, ["summary"], Schema.summaryKeys)
            if let times = stringElements(table, "times") {
                configuration.policy.summaryTimes = times.compactMap { time($0.text, $0.position) }.sorted()
            }
        }
        if let apps = subtable(root, "apps") {
            checkUnique(apps, ["apps"], what: "app keys")
            for key in apps.keys {
                guard let table = subtable(apps, key) else { continue }
                configuration.policy.apps[key] = appRule(table, ["apps", key])
            }
        }
        if let focuses = subtable(root, "focus") {
            checkUnique(focuses, ["focus"], what: "Focus names")
            for name in focuses.keys {
                guard let table = subtable(focuses, name) else { continue }
                configuration.policy.focuses.append(focus(name, table))
            }
        }
        if let table = subtable(root, "share") {
            configuration.share = share(table)
        }
        guard problems.isEmpty else { throw ConfigError(problems: problems) }
        return configuration
    }

    // MARK: Tables

    /// The top level holds tables only. A key there that belongs in a table (`times = […]` for
    /// `[summary] times`) is told as such.
    private func checkTopLevel() {
        for entry in root.entries where !Schema.tables.contains(entry.key) {
            if entry.value.table != nil {
                var message = "unknown table `\(entry.key)`"
                if let suggestion = ClosestName.to(entry.key, among: Schema.tables) { message += "; did you mean `\(suggestion)`?" }
                note(entry.keyPosition, message)
            } else {
                var message = "unknown key `\(entry.key)` at the top level (outside any table)"
                if let home = Self.home(of: entry.key) { message += "; did you mean \(home)?" }
                note(entry.keyPosition, message)
            }
        }
    }

    /// Where a key found at the top level belongs: `[TABLE] KEY` for the table that has it (or,
    /// failing that, a near name).
    static func home(of key: String) -> String? {
        let homes: [(header: String, keys: [String])] = [
            ("[general]", Schema.generalKeys), ("[downstream]", Schema.downstreamKeys), ("[summary]", Schema.summaryKeys),
            ("[apps.\"APP\"]", Schema.appKeys), ("[focus.NAME]", Schema.focusKeys),
            ("[[focus.NAME.schedule]]", Schema.scheduleKeys), ("[share]", Schema.shareKeys),
        ]
        if let home = homes.first(where: { $0.keys.contains(key) }) { return "`\(home.header) \(key)`" }
        let all = homes.flatMap { home in home.keys.map { (home.header, $0) } }
        guard let near = ClosestName.to(key, among: all.map(\.1)), let home = all.first(where: { $0.1 == near }) else {
            return nil
        }
        return "`\(home.0) \(near)`"
    }

    private func downstream(_ table: TOMLTable) -> DownstreamSettings {
        let at = ["downstream"]
        checkKeys(table, at, Schema.downstreamKeys)
        var settings = DownstreamSettings()
        if let mode = string(table, "mode"), let mode = choice(mode, table, "mode", DownstreamSettings.Mode.self) {
            settings.mode = mode
        }
        if let command = strings(table, "command") {
            if command.isEmpty { note(table, "command", "`command` must name a program") } else { settings.command = command }
        }
        settings.name = string(table, "name")
        settings.address = string(table, "address")
        settings.passthroughNames = strings(table, "passthrough-names") ?? []
        if let names = strings(table, "session-names") {
            var good = true
            for name in names {
                if let problem = SessionNames.problem(with: name, passthroughNames: settings.passthroughNames) {
                    note(table, "session-names", "`session-names`: \(problem)")
                    good = false
                }
            }
            if good { settings.sessionNames = names }
        }
        return settings
    }

    private func general(_ table: TOMLTable) -> GeneralSettings {
        checkKeys(table, ["general"], Schema.generalKeys)
        var settings = GeneralSettings()
        if let previews = string(table, "previews"), let mode = choice(previews, table, "previews", PreviewMode.self) {
            settings.previews = mode
        }
        if let maximum = integer(table, "max-actions") {
            if (0...ActionNormaliser.buttonLimit).contains(maximum) {
                settings.maxActions = maximum
            } else {
                note(table, "max-actions", "`max-actions` must be from 0 to \(ActionNormaliser.buttonLimit), not \(maximum)")
            }
        }
        if let labels = strings(table, "destructive-labels") { settings.destructiveLabels = labels }
        if let marker = string(table, "destructive-marker") { settings.destructiveMarker = marker }
        if let seconds = integer(table, "coalesce-seconds") {
            if (0...86_400).contains(seconds) {
                settings.coalesceSeconds = seconds
            } else {
                note(table, "coalesce-seconds", "`coalesce-seconds` must be from 0 to 86400 (a day)")
            }
        }
        if let after = string(table, "after-focus"), let choice = choice(after, table, "after-focus", AfterFocus.self) {
            settings.afterFocus = choice
        }
        if let days = integer(table, "history-days") {
            if days >= 1 { settings.historyDays = days } else { note(table, "history-days", "`history-days` must be at least 1") }
        }
        if let limit = integer(table, "rate-limit") {
            if limit >= 0 {
                settings.rateLimit = limit
            } else {
                note(table, "rate-limit", "`rate-limit` must not be negative (0 turns it off)")
            }
        }
        if let seconds = integer(table, "rate-limit-seconds") {
            if (1...86_400).contains(seconds) {
                settings.rateLimitSeconds = seconds
            } else {
                note(table, "rate-limit-seconds", "`rate-limit-seconds` must be from 1 to 86400 (a day)")
            }
        }
        if let flag = bool(table, "explain-time-sensitive") { settings.explainTimeSensitive = flag }
        if let text = string(table, "when-focused"), let choice = choice(text, table, "when-focused", WhenFocused.self) {
            settings.whenFocused = choice
        }
        if let actions = quickActions(table) { settings.quickActions = actions }
        if let flag = bool(table, "badges") { settings.badges = flag }
        if let flag = bool(table, "tray") { settings.tray = flag }
        return settings
    }

    /// `[share]`: an absolute folder (or one under `~/`), and a device name fit for a file name.
    private func share(_ table: TOMLTable) -> ShareSettings {
        checkKeys(table, ["share"], Schema.shareKeys)
        var settings = ShareSettings()
        if let folder = string(table, "folder") {
            if folder.hasPrefix("/") || folder.hasPrefix("~/") {
                settings.folder = folder
            } else {
                note(table, "folder", "`folder` must be an absolute path or start with ~/, not \"\(folder)\"")
            }
        }
        if let device = string(table, "device") {
            if SharedFocus.isValidDevice(device) {
                settings.device = device
            } else {
                note(table, "device", "`device`: \(SharedFocus.deviceNameRule), not \"\(device)\"")
            }
        }
        return settings
    }

    private func appRule(_ table: TOMLTable, _ at: [String]) -> AppRule {
        checkKeys(table, at, Schema.appKeys)
        var rule = AppRule()
        if let text = string(table, "delivery"), let delivery = choice(text, table, "delivery", AppDelivery.self) {
            rule.delivery = delivery
        }
        if let text = string(table, "level"), let level = choice(text, table, "level", InterruptionLevel.self) { rule.level = level }
        if let flag = bool(table, "time-sensitive") { rule.timeSensitive = flag }
        if let flag = bool(table, "critical") { rule.critical = flag }
        if let flag = bool(table, "communication") { rule.communication = flag }
        if let text = string(table, "previews"), let previews = choice(text, table, "previews", PreviewMode.self) {
            rule.previews = previews
        }
        if let flag = bool(table, "marketing") { rule.marketing = flag }
        if let text = string(table, "when-focused"), let choice = choice(text, table, "when-focused", WhenFocused.self) {
            rule.whenFocused = choice
        }
        if let flag = bool(table, "badges") { rule.badges = flag }
        rule.quickActions = quickActions(table)
        // Where each setting comes from, for `focusctl apps`.
        for entry in table.entries where Schema.appKeys.contains(entry.key) {
            rule.origins[entry.key] = .config(line: entry.valuePosition.line)
        }
        return rule
    }

    /// `quick-actions`: names of `QuickAction`s, each once.
    private func quickActions(_ table: TOMLTable) -> [QuickAction]? {
        guard let names = stringElements(table, "quick-actions") else { return nil }
        var actions: [QuickAction] = []
        var good = true
        for name in names {
            guard let action = QuickAction(rawValue: name.text) else {
                let options = QuickAction.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                var message = "`quick-actions` takes \(options), not \"\(name.text)\""
                if let near = ClosestName.to(name.text, among: QuickAction.allCases.map(\.rawValue)) { message += "; did you mean \"\(near)\"?" }
                note(name.position, message)
                good = false
                continue
            }
            if actions.contains(action) { note(name.position, "`quick-actions` names \"\(name.text)\" twice") }
            actions.append(action)
        }
        return good ? actions : nil
    }

    private func focus(_ name: String, _ table: TOMLTable) -> FocusProfile {
        let at = ["focus", name]
        checkKeys(table, at, Schema.focusKeys)
        var focus = FocusProfile(name: name)
        let apps = strings(table, "apps")
        let silence = strings(table, "silence")
        if table.entry("apps") != nil, let entry = table.entry("silence") {
            note(entry.keyPosition, "a Focus takes `apps` (allowed apps) or `silence` (all but these), not both")
        }
        if let silence { focus.apps = .silence(silence) }
        if let apps { focus.apps = .allowOnly(apps) }
        focus.people = strings(table, "people") ?? []
        if let flag = bool(table, "time-sensitive") { focus.timeSensitive = flag }
        if let flag = bool(table, "while-fullscreen") { focus.whileFullscreen = flag }
        focus.whileFocused = strings(table, "while-focused") ?? []
        if let text = string(table, "previews"), let previews = choice(text, table, "previews", PreviewMode.self) {
            focus.previews = previews
        }
        if let value = table["schedule"] {
            if let entries = value.array {
                for entry in entries.elements {
                    guard let entryTable = entry.value.table else {
                        note(entry.position, "each `schedule` entry must be a table with days, start and end")
                        continue
                    }
                    if let scheduled = scheduleEntry(entryTable, at + ["schedule"]) { focus.schedule.append(scheduled) }
                }
            } else {
                note(table, "schedule", "`schedule` must be an array of tables ([[focus.\(name).schedule]])")
            }
        }
        return focus
    }

    private func scheduleEntry(_ table: TOMLTable, _ at: [String]) -> ScheduleEntry? {
        let misspelt = checkKeys(table, at, Schema.scheduleKeys)
        var days = Set(Weekday.allCases)
        if let names = stringElements(table, "days") {
            days = []
            for name in names {
                if let day = Weekday(name: name.text) {
                    days.insert(day)
                } else {
                    note(name.position, "unknown day \"\(name.text)\" (expected mon, tue, wed, thu, fri, sat or sun)")
                }
            }
        }
        for key in ["start", "end"] where table.entry(key) == nil && !misspelt.contains(key) {
            note(table.position, "a schedule entry needs `\(key)`")
        }
        // Each time is checked, the other one wrong or not.
        let start = string(table, "start").flatMap { time($0, table.entry("start")!.valuePosition) }
        let end = string(table, "end").flatMap { time($0, table.entry("end")!.valuePosition) }
        guard let start, let end else { return nil }
        if start == end {
            note(table, "end", "`start` and `end` are the same time")
            return nil
        }
        return ScheduleEntry(days: days, start: start, end: end)
    }

    // MARK: Typed values (nil when absent or wrong; wrong is noted)

    private func subtable(_ parent: TOMLTable, _ key: String) -> TOMLTable? {
        guard let entry = parent.entry(key) else { return nil }
        guard let table = entry.value.table else {
            note(entry.valuePosition, "`\(key)` must be a table, not \(entry.value.typeName)")
            return nil
        }
        return table
    }

    private func string(_ table: TOMLTable, _ key: String) -> String? {
        guard let entry = table.entry(key) else { return nil }
        guard let text = entry.value.string else {
            note(entry.valuePosition, "`\(key)` must be a string, not \(entry.value.typeName)")
            return nil
        }
        return text
    }

    private func bool(_ table: TOMLTable, _ key: String) -> Bool? {
        guard let entry = table.entry(key) else { return nil }
        guard let flag = entry.value.boolean else {
            note(entry.valuePosition, "`\(key)` must be true or false, not \(entry.value.typeName)")
            return nil
        }
        return flag
    }

    private func integer(_ table: TOMLTable, _ key: String) -> Int? {
        guard let entry = table.entry(key) else { return nil }
        guard let number = entry.value.integer.flatMap({ Int(exactly: $0) }) else {
            note(entry.valuePosition, "`\(key)` must be a whole number, not \(entry.value.typeName)")
            return nil
        }
        return number
    }

    private func strings(_ table: TOMLTable, _ key: String) -> [String]? {
        stringElements(table, key)?.map(\.text)
    }

    /// An array of strings, each with its position; nil when absent, or when it is not one (each
    /// element that is not a string noted).
    private func stringElements(_ table: TOMLTable, _ key: String) -> [(text: String, position: TOMLPosition)]? {
        guard let entry = table.entry(key) else { return nil }
        guard let array = entry.value.array else {
            note(entry.valuePosition, "`\(key)` must be an array of strings, not \(entry.value.typeName)")
            return nil
        }
        var result: [(text: String, position: TOMLPosition)] = []
        var good = true
        for element in array.elements {
            guard let text = element.value.string else {
                note(element.position, "`\(key)` must be an array of strings, not one with \(element.value.typeName)")
                good = false
                continue
            }
            result.append((text, element.position))
        }
        return good ? result : nil
    }

    private func choice<T: RawRepresentable & CaseIterable>(_ text: String, _ table: TOMLTable, _ key: String,
                                                              _ type: T.Type) -> T? where T.RawValue == String {
        if let value = T(rawValue: text) { return value }
        let options = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        var message = "`\(key)` must be one of \(options), not \"\(text)\""
        if let suggestion = ClosestName.to(text, among: T.allCases.map(\.rawValue)) {
            message += "; did you mean \"\(suggestion)\"?"
        }
        note(table, key, message)
        return nil
    }

    private func time(_ text: String, _ position: TOMLPosition) -> TimeOfDay? {
        guard let time = TimeOfDay(text) else {
            note(position, "\"\(text)\" is not a time of day (expected HH:MM, 00:00 to 23:59)")
            return nil
        }
        return time
    }

    // MARK: Problems

    /// App keys and Focus names ignore case, so two that differ only in case would be ambiguous:
    /// each repeat is noted at its own table.
    private func checkUnique(_ parent: TOMLTable, _ at: [String], what: String) {
        var seen: [String: String] = [:]
        let prefix = at.joined(separator: ".")
        for entry in parent.entries {
            if let first = seen[entry.key.lowercased()] {
                note(entry.value.table?.position ?? entry.valuePosition,
                     "[\(prefix).\"\(entry.key)\"] repeats [\(prefix).\"\(first)\"] (\(what) ignore case)")
            } else {
                seen[entry.key.lowercased()] = entry.key
            }
        }
    }

    /// Notes each unknown key (with the known one it is likely a typo of); returns those likely
    /// meant, so that a missing key already told as misspelt is not told again.
    @discardableResult
    private func checkKeys(_ table: TOMLTable, _ at: [String], _ known: [String]) -> Set<String> {
        var meant: Set<String> = []
        for entry in table.entries where !known.contains(entry.key) {
            var message = "unknown key `\(entry.key)` in [\(at.joined(separator: "."))]"
            if let suggestion = ClosestName.to(entry.key, among: known) {
                message += "; did you mean `\(suggestion)`?"
                meant.insert(suggestion)
            }
            note(entry.keyPosition, message)
        }
        return meant
    }

    /// A problem at the value of `key` in `table`.
    private func note(_ table: TOMLTable, _ key: String, _ message: String) {
        note(table.entry(key)?.valuePosition ?? table.position, message)
    }

    private func note(_ position: TOMLPosition, _ message: String) {
        problems.append(ConfigError.Problem(path: path, line: position.line, column: position.column, message: message))
    }
}
