/// Every table and key the configuration file knows, by name: the reader checks names against
/// these lists. The keys come from their definitions in `ConfigKeys`.
public enum Schema {
    public static let tables = ["downstream", "general", "summary", "apps", "focus", "share"]
    public static let downstreamKeys = ConfigKeys.downstream.map(\.name)
    public static let generalKeys = ConfigKeys.general.map(\.name)
    public static let summaryKeys = ConfigKeys.summary.map(\.name)
    public static let appKeys = ConfigKeys.app.map(\.name)
    public static let focusKeys = ConfigKeys.focus.map(\.name)
    public static let scheduleKeys = ConfigKeys.schedule.map(\.name)
    public static let shareKeys = ConfigKeys.share.map(\.name)

    /// Each table that holds keys: its name, its header as the file writes it, and its keys (name
    /// and kind of value). In the order a key found at the top level is looked for in (`[general]`
    /// first).
    static let keyTables: [(name: String, header: String, keys: [(name: String, kind: ConfigValueKind)])] = [
        ("general", "[general]", ConfigKeys.general.map { ($0.name, $0.kind) }),
        ("downstream", "[downstream]", ConfigKeys.downstream.map { ($0.name, $0.kind) }),
        ("summary", "[summary]", ConfigKeys.summary.map { ($0.name, $0.kind) }),
        ("apps", "[apps.\"APP\"]", ConfigKeys.app.map { ($0.name, $0.kind) }),
        ("focus", "[focus.NAME]", ConfigKeys.focus.map { ($0.name, $0.kind) }),
        ("schedule", "[[focus.NAME.schedule]]", ConfigKeys.schedule.map { ($0.name, $0.kind) }),
        ("share", "[share]", ConfigKeys.share.map { ($0.name, $0.kind) }),
    ]

    /// All key names, for documentation checks.
    public static var allKeys: [String] {
        Array(Set(downstreamKeys + generalKeys + summaryKeys + appKeys + focusKeys + scheduleKeys + shareKeys)).sorted()
    }
}
