import FocusBridgeCore
import FocusBridgeTOML
import FocusBridgeTime

/// Reads the parsed TOML tables into `Configuration`, checking names, types and values as it
/// goes. A problem is noted with its position (the value's own, an element's in an array, or the
/// key's when the name is the problem) and the reading goes on: a value found wrong is left at
/// its default, and the rest of the file is still checked, so that every mistake is reported in
/// one run. Any problem refuses the whole file.
///
/// Each table's keys are read through their definitions in `ConfigKeys`, which call the typed
/// readers and `note` here; this class holds what spans keys (tables, names, schedule entries).
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
            read(table, ["downstream"], ConfigKeys.downstream, into: &configuration.downstream)
        }
        if let table = subtable(root, "general") {
            read(table, ["general"], ConfigKeys.general, into: &configuration.policy.general)
        }
        if let table = subtable(root, "summary") {
            read(table, ["summary"], ConfigKeys.summary, into: &configuration.policy)
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
                var focus = FocusProfile(name: name)
                read(table, ["focus", name], ConfigKeys.focus, into: &focus)
                configuration.policy.focuses.append(focus)
            }
        }
        if let table = subtable(root, "share") {
            read(table, ["share"], ConfigKeys.share, into: &configuration.share)
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
        let homes = Schema.keyTables.map { (header: $0.header, keys: $0.keys.map(\.name)) }
        if let home = homes.first(where: { $0.keys.contains(key) }) { return "`\(home.header) \(key)`" }
        let all = homes.flatMap { home in home.keys.map { (home.header, $0) } }
        guard let near = ClosestName.to(key, among: all.map(\.1)), let home = all.first(where: { $0.1 == near }) else {
            return nil
        }
        return "`\(home.0) \(near)`"
    }

    /// Reads `keys` from `table` into `settings`, after noting the table's unknown keys.
    private func read<Settings>(_ table: TOMLTable, _ at: [String], _ keys: [ConfigKey<Settings>],
                                into settings: inout Settings) {
        checkKeys(table, at, keys.map(\.name))
        for key in keys { key.read(self, table, &settings) }
    }

    private func appRule(_ table: TOMLTable, _ at: [String]) -> AppRule {
        var rule = AppRule()
        read(table, at, ConfigKeys.app, into: &rule)
        // Where each setting comes from, for `focusctl apps`.
        for entry in table.entries where Schema.appKeys.contains(entry.key) {
            rule.origins[entry.key] = .config(line: entry.valuePosition.line)
        }
        return rule
    }

    /// `quick-actions`: names of `QuickAction`s, each once.
    func quickActions(_ table: TOMLTable, _ key: String) -> [QuickAction]? {
        guard let names = stringElements(table, key) else { return nil }
        var actions: [QuickAction] = []
        var good = true
        for name in names {
            guard let action = QuickAction(rawValue: name.text) else {
                let options = QuickAction.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                var message = "`\(key)` takes \(options), not \"\(name.text)\""
                if let near = ClosestName.to(name.text, among: QuickAction.allCases.map(\.rawValue)) { message += "; did you mean \"\(near)\"?" }
                note(name.position, message)
                good = false
                continue
            }
            if actions.contains(action) { note(name.position, "`\(key)` names \"\(name.text)\" twice") }
            actions.append(action)
        }
        return good ? actions : nil
    }

    /// A `[[focus.NAME.schedule]]` entry; nil when a time is missing or wrong.
    func scheduleEntry(_ table: TOMLTable, _ at: [String]) -> ScheduleEntry? {
        let misspelt = checkKeys(table, at, Schema.scheduleKeys)
        var draft = ScheduleDraft()
        for key in ConfigKeys.schedule { key.read(self, table, &draft) }
        for key in ["start", "end"] where table.entry(key) == nil && !misspelt.contains(key) {
            note(table.position, "a schedule entry needs `\(key)`")
        }
        guard let start = draft.start, let end = draft.end else { return nil }
        if start == end {
            note(table, "end", "`start` and `end` are the same time")
            return nil
        }
        return ScheduleEntry(days: draft.days, start: start, end: end)
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

    func string(_ table: TOMLTable, _ key: String) -> String? {
        guard let entry = table.entry(key) else { return nil }
        guard let text = entry.value.string else {
            note(entry.valuePosition, "`\(key)` must be a string, not \(entry.value.typeName)")
            return nil
        }
        return text
    }

    func bool(_ table: TOMLTable, _ key: String) -> Bool? {
        guard let entry = table.entry(key) else { return nil }
        guard let flag = entry.value.boolean else {
            note(entry.valuePosition, "`\(key)` must be true or false, not \(entry.value.typeName)")
            return nil
        }
        return flag
    }

    func integer(_ table: TOMLTable, _ key: String) -> Int? {
        guard let entry = table.entry(key) else { return nil }
        guard let number = entry.value.integer.flatMap({ Int(exactly: $0) }) else {
            note(entry.valuePosition, "`\(key)` must be a whole number, not \(entry.value.typeName)")
            return nil
        }
        return number
    }

    func strings(_ table: TOMLTable, _ key: String) -> [String]? {
        stringElements(table, key)?.map(\.text)
    }

    /// An array of strings, each with its position; nil when absent, or when it is not one (each
    /// element that is not a string noted).
    func stringElements(_ table: TOMLTable, _ key: String) -> [(text: String, position: TOMLPosition)]? {
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

    func choice<T: RawRepresentable & CaseIterable>(_ text: String, _ table: TOMLTable, _ key: String,
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

    func time(_ text: String, _ position: TOMLPosition) -> TimeOfDay? {
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
            if at.count == 2, at[0] == "apps", ["mute", "muted"].contains(entry.key.lowercased()) {
                // A mute is for a while, kept in the state, not in the file.
                message += "; a mute lasts a while and is set with `focusctl mute \(at[1])` (`focusctl unmute` ends it); "
                    + "to never show this app's notifications: `delivery = \"off\"`"
            } else if let suggestion = ClosestName.to(entry.key, among: known) {
                message += "; did you mean `\(suggestion)`?"
                meant.insert(suggestion)
            }
            note(entry.keyPosition, message)
        }
        return meant
    }

    /// A problem at the value of `key` in `table`.
    func note(_ table: TOMLTable, _ key: String, _ message: String) {
        note(table.entry(key)?.valuePosition ?? table.position, message)
    }

    func note(_ position: TOMLPosition, _ message: String) {
        problems.append(ConfigError.Problem(path: path, line: position.line, column: position.column, message: message))
    }
}
