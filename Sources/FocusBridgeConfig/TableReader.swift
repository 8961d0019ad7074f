import TOMLKit

/// Reads the parsed TOML tables into `Configuration`, checking names and types as it goes.
struct TableReader {
    let path: String
    let locator: SourceLocator

    /// Top-level tables of the full schema; those not read yet are accepted and ignored.
    static let knownTables = ["downstream", "general", "summary", "apps", "focus"]
    static let downstreamKeys = ["mode", "command", "name", "address", "passthrough-names"]

    mutating func configuration(from root: TOMLTable) throws(ConfigError) -> Configuration {
        var configuration = Configuration()
        for key in root.keys where !Self.knownTables.contains(key) {
            throw error(table: key, key: nil, unknown: key, among: Self.knownTables, what: "table")
        }
        if let value = root["downstream"] {
            guard let downstream = value.table else {
                throw error(table: "", key: "downstream", message: "`downstream` must be a table")
            }
            configuration.downstream = try downstreamSettings(from: downstream)
        }
        return configuration
    }

    private func downstreamSettings(from table: TOMLTable) throws(ConfigError) -> DownstreamSettings {
        var settings = DownstreamSettings()
        for key in table.keys where !Self.downstreamKeys.contains(key) {
            throw error(table: "downstream", key: key, unknown: key, among: Self.downstreamKeys, what: "key")
        }
        if let mode = try string(table, "downstream", "mode") {
            guard let value = DownstreamSettings.Mode(rawValue: mode) else {
                let modes = DownstreamSettings.Mode.allCases.map(\.rawValue).joined(separator: ", ")
                throw error(table: "downstream", key: "mode", message: "unknown mode \"\(mode)\" (expected one of \(modes))")
            }
            settings.mode = value
        }
        if let command = try strings(table, "downstream", "command") {
            guard !command.isEmpty else {
                throw error(table: "downstream", key: "command", message: "`command` must name a program")
            }
            settings.command = command
        }
        settings.name = try string(table, "downstream", "name")
        settings.address = try string(table, "downstream", "address")
        settings.passthroughNames = try strings(table, "downstream", "passthrough-names") ?? []
        return settings
    }

    // MARK: Typed values

    private func string(_ table: TOMLTable, _ tableName: String, _ key: String) throws(ConfigError) -> String? {
        guard let value = table[key] else { return nil }
        guard let text = value.string else {
            throw error(table: tableName, key: key, message: "`\(key)` must be a string, not \(value.type)")
        }
        return text
    }

    private func strings(_ table: TOMLTable, _ tableName: String, _ key: String) throws(ConfigError) -> [String]? {
        guard let value = table[key] else { return nil }
        guard let array = value.array else {
            throw error(table: tableName, key: key, message: "`\(key)` must be an array of strings, not \(value.type)")
        }
        var result: [String] = []
        for element in array {
            guard let text = element.string else {
                throw error(table: tableName, key: key, message: "`\(key)` must be an array of strings")
            }
            result.append(text)
        }
        return result
    }

    // MARK: Errors

    private func error(table: String, key: String?, message: String) -> ConfigError {
        let position = locator.position(table: table, key: key)
        return ConfigError(path: path, line: position.line, column: position.column, message: message)
    }

    private func error(table: String, key: String?, unknown: String, among known: [String], what: String) -> ConfigError {
        var message = "unknown \(what) `\(unknown)`"
        if let suggestion = Suggestion.closest(to: unknown, among: known) { message += "; did you mean `\(suggestion)`?" }
        return error(table: key == nil ? unknown : table, key: key, message: message)
    }
}
