import FocusBridgeCore
import FocusBridgeTime
import FocusBridgeTOML

/// One key of a table of the configuration file, defined once: its name, the kind of value it
/// takes, and how its value is checked and stored in the table's settings. The key's default is
/// the settings struct's own (`GeneralSettings()` and so on). `Schema`'s name lists (unknown keys,
/// "did you mean") come from these, `TableReader` reads each table through them, and
/// `SchemaDocumentationTests` checks the man page and the example file against them.
struct ConfigKey<Settings>: Sendable {
    typealias Kind = ConfigValueKind
    typealias Path<Value> = WritableKeyPath<Settings, Value> & Sendable

    let name: String
    let kind: Kind
    /// Reads the key's value from the table, when it is there, into the settings; a wrong value is
    /// noted (at its place, with the key's name) and the setting keeps what it had.
    let read: @Sendable (TableReader, TOMLTable, inout Settings) -> Void
}

/// What a key takes, as the file writes it.
enum ConfigValueKind: Equatable, Sendable {
    case bool, integer, string, strings
    /// A string, one of `names`; `many`: an array of strings, each one of them. One case with a
    /// payload: with two, Swift keeps the case in the array pointer's spare bits, where
    /// LeakSanitizer cannot see it, and every key list (a global) is reported leaked.
    case oneOf(_ names: [String], many: Bool)
    /// An `HH:MM` string; an array of them.
    case time, times
    /// An array of tables.
    case tables

    /// A string, one of these.
    static func choice(_ names: [String]) -> Self { .oneOf(names, many: false) }
    /// An array of strings, each one of these.
    static func choices(_ names: [String]) -> Self { .oneOf(names, many: true) }
}

extension ConfigKey {
    /// A key read by code of its own (one whose check needs other keys or its element's places).
    static func custom(_ name: String, _ kind: Kind,
                       read: @escaping @Sendable (TableReader, TOMLTable, inout Settings) -> Void) -> Self {
        Self(name: name, kind: kind, read: read)
    }

    static func bool(_ name: String, _ path: Path<Bool>) -> Self {
        Self(name: name, kind: .bool) { reader, table, settings in
            if let flag = reader.bool(table, name) { settings[keyPath: path] = flag }
        }
    }

    /// `check` gives the message for a value out of range, nil for a good one.
    static func integer(_ name: String, _ path: Path<Int>, check: @escaping @Sendable (Int) -> String?) -> Self {
        Self(name: name, kind: .integer) { reader, table, settings in
            guard let number = reader.integer(table, name) else { return }
            if let problem = check(number) { reader.note(table, name, problem) } else { settings[keyPath: path] = number }
        }
    }

    static func string(_ name: String, _ path: Path<String>) -> Self {
        Self(name: name, kind: .string) { reader, table, settings in
            if let text = reader.string(table, name) { settings[keyPath: path] = text }
        }
    }

    /// `check` gives the message for a wrong value, nil for a good one.
    static func string(_ name: String, _ path: Path<String?>,
                       check: (@Sendable (String) -> String?)? = nil) -> Self {
        Self(name: name, kind: .string) { reader, table, settings in
            guard let text = reader.string(table, name) else { return }
            if let problem = check?(text) { reader.note(table, name, problem) } else { settings[keyPath: path] = text }
        }
    }

    /// `check` gives the message for a wrong array, nil for a good one.
    static func strings(_ name: String, _ path: Path<[String]>,
                        check: (@Sendable ([String]) -> String?)? = nil) -> Self {
        Self(name: name, kind: .strings) { reader, table, settings in
            guard let texts = reader.strings(table, name) else { return }
            if let problem = check?(texts) { reader.note(table, name, problem) } else { settings[keyPath: path] = texts }
        }
    }

    static func choice<T: RawRepresentable & CaseIterable & Sendable>(_ name: String, _ path: Path<T>) -> Self
    where T.RawValue == String {
        Self(name: name, kind: .choice(T.allCases.map(\.rawValue))) { reader, table, settings in
            if let text = reader.string(table, name), let value = reader.choice(text, table, name, T.self) {
                settings[keyPath: path] = value
            }
        }
    }

    static func choice<T: RawRepresentable & CaseIterable & Sendable>(_ name: String, _ path: Path<T?>) -> Self
    where T.RawValue == String {
        Self(name: name, kind: .choice(T.allCases.map(\.rawValue))) { reader, table, settings in
            if let text = reader.string(table, name), let value = reader.choice(text, table, name, T.self) {
                settings[keyPath: path] = value
            }
        }
    }

    static func quickActions(_ name: String, _ path: Path<[QuickAction]>) -> Self {
        Self(name: name, kind: .choices(QuickAction.allCases.map(\.rawValue))) { reader, table, settings in
            if let actions = reader.quickActions(table, name) { settings[keyPath: path] = actions }
        }
    }

    static func quickActions(_ name: String, _ path: Path<[QuickAction]?>) -> Self {
        Self(name: name, kind: .choices(QuickAction.allCases.map(\.rawValue))) { reader, table, settings in
            if let actions = reader.quickActions(table, name) { settings[keyPath: path] = actions }
        }
    }
}

/// A `[[focus.NAME.schedule]]` entry as it is read: a `ScheduleEntry` once it has both times.
struct ScheduleDraft: Sendable {
    var days = Set(Weekday.allCases)
    var start: TimeOfDay?
    var end: TimeOfDay?
}

/// Every key of every table, each defined once. The order of a table's keys is the order its
/// names are offered in for "did you mean" (of two equally near names, the first).
enum ConfigKeys {
    static let downstream: [ConfigKey<DownstreamSettings>] = [
        .choice("mode", \.mode),
        .strings("command", \.command) { $0.isEmpty ? "`command` must name a program" : nil },
        .string("name", \.name),
        .string("address", \.address),
        .strings("passthrough-names", \.passthroughNames),
        // Checked against the passthrough names read before it; one message for each wrong name.
        .custom("session-names", .strings) { reader, table, settings in
            guard let names = reader.strings(table, "session-names") else { return }
            var good = true
            for name in names {
                if let problem = SessionNames.problem(with: name, passthroughNames: settings.passthroughNames) {
                    reader.note(table, "session-names", "`session-names`: \(problem)")
                    good = false
                }
            }
            if good { settings.sessionNames = names }
        },
    ]

    static let general: [ConfigKey<GeneralSettings>] = [
        .choice("previews", \.previews),
        .integer("max-actions", \.maxActions) { maximum in
            (0...ActionNormaliser.buttonLimit).contains(maximum)
                ? nil : "`max-actions` must be from 0 to \(ActionNormaliser.buttonLimit), not \(maximum)"
        },
        .strings("destructive-labels", \.destructiveLabels),
        .string("destructive-marker", \.destructiveMarker),
        .integer("coalesce-seconds", \.coalesceSeconds) {
            (0...86_400).contains($0) ? nil : "`coalesce-seconds` must be from 0 to 86400 (a day)"
        },
        .choice("after-focus", \.afterFocus),
        .integer("history-days", \.historyDays) { $0 >= 1 ? nil : "`history-days` must be at least 1" },
        .integer("rate-limit", \.rateLimit) { $0 >= 0 ? nil : "`rate-limit` must not be negative (0 turns it off)" },
        .integer("rate-limit-seconds", \.rateLimitSeconds) {
            (1...86_400).contains($0) ? nil : "`rate-limit-seconds` must be from 1 to 86400 (a day)"
        },
        .bool("explain-time-sensitive", \.explainTimeSensitive),
        .quickActions("quick-actions", \.quickActions),
        .choice("when-focused", \.whenFocused),
        .choice("while-locked", \.whileLocked),
        .bool("badges", \.badges),
        .bool("tray", \.tray),
        .integer("history-max-mb", \.historyMaxMB) {
            (4...1_048_576).contains($0) ? nil : "`history-max-mb` must be from 4 to 1048576 (1 TiB), not \($0)"
        },
        .choice("time-sensitive-review", \.timeSensitiveReview),
    ]

    static let summary: [ConfigKey<PolicySettings>] = [
        // A wrong time is noted and left out; the others are kept, in order.
        .custom("times", .times) { reader, table, settings in
            if let times = reader.stringElements(table, "times") {
                settings.summaryTimes = times.compactMap { reader.time($0.text, $0.position) }.sorted()
            }
        },
    ]

    static let app: [ConfigKey<AppRule>] = [
        .choice("delivery", \.delivery),
        .choice("level", \.level),
        .bool("time-sensitive", \.timeSensitive),
        .bool("critical", \.critical),
        .bool("communication", \.communication),
        .choice("previews", \.previews),
        .bool("marketing", \.marketing),
        .quickActions("quick-actions", \.quickActions),
        .choice("when-focused", \.whenFocused),
        .bool("badges", \.badges),
    ]

    static let focus: [ConfigKey<FocusProfile>] = [
        .custom("apps", .strings) { reader, table, settings in
            if let apps = reader.strings(table, "apps") { settings.apps = .allowOnly(apps) }
        },
        // `apps` and `silence` are one setting; a Focus with both is refused (and `apps` wins).
        .custom("silence", .strings) { reader, table, settings in
            if table.entry("apps") != nil, let entry = table.entry("silence") {
                reader.note(entry.keyPosition, "a Focus takes `apps` (allowed apps) or `silence` (all but these), not both")
            }
            if let silence = reader.strings(table, "silence"), table.entry("apps") == nil { settings.apps = .silence(silence) }
        },
        .strings("people", \.people),
        .bool("time-sensitive", \.timeSensitive),
        .bool("repeated-calls", \.repeatedCalls),
        .choice("previews", \.previews),
        .custom("schedule", .tables) { reader, table, settings in
            guard let value = table["schedule"] else { return }
            guard let entries = value.array else {
                reader.note(table, "schedule", "`schedule` must be an array of tables ([[focus.\(settings.name).schedule]])")
                return
            }
            for entry in entries.elements {
                guard let entryTable = entry.value.table else {
                    reader.note(entry.position, "each `schedule` entry must be a table with days, start and end")
                    continue
                }
                if let scheduled = reader.scheduleEntry(entryTable, ["focus", settings.name, "schedule"]) {
                    settings.schedule.append(scheduled)
                }
            }
        },
        .bool("while-fullscreen", \.whileFullscreen),
        .strings("while-focused", \.whileFocused),
    ]

    static let schedule: [ConfigKey<ScheduleDraft>] = [
        // Each unknown day is noted at its own place.
        .custom("days", .choices(Weekday.allCases.map(\.name))) { reader, table, settings in
            guard let names = reader.stringElements(table, "days") else { return }
            settings.days = []
            for name in names {
                if let day = Weekday(name: name.text) {
                    settings.days.insert(day)
                } else {
                    reader.note(name.position, "unknown day \"\(name.text)\" (expected mon, tue, wed, thu, fri, sat or sun)")
                }
            }
        },
        .custom("start", .time) { reader, table, settings in
            settings.start = reader.string(table, "start").flatMap { reader.time($0, table.entry("start")!.valuePosition) }
        },
        .custom("end", .time) { reader, table, settings in
            settings.end = reader.string(table, "end").flatMap { reader.time($0, table.entry("end")!.valuePosition) }
        },
    ]

    static let share: [ConfigKey<ShareSettings>] = [
        .string("folder", \.folder) { folder in
            folder.hasPrefix("/") || folder.hasPrefix("~/")
                ? nil : "`folder` must be an absolute path or start with ~/, not \"\(folder)\""
        },
        .string("device", \.device) { device in
            SharedFocus.isValidDevice(device) ? nil : "`device`: \(SharedFocus.deviceNameRule), not \"\(device)\""
        },
    ]
}
