/// Every table and key the configuration file knows; the reader checks names against it and
/// the documentation tests check the man page against it.
public enum Schema {
    public static let tables = ["downstream", "general", "summary", "apps", "focus"]
    public static let downstreamKeys = ["mode", "command", "name", "address", "passthrough-names", "session-names"]
    public static let generalKeys = ["previews", "max-actions", "destructive-labels", "destructive-marker",
                                     "coalesce-seconds", "after-focus", "history-days", "rate-limit",
                                     "rate-limit-seconds", "explain-time-sensitive", "quick-actions", "badges", "tray"]
    public static let summaryKeys = ["times"]
    public static let appKeys = ["delivery", "level", "time-sensitive", "critical", "communication", "previews",
                                 "marketing", "quick-actions", "badges"]
    public static let focusKeys = ["apps", "silence", "people", "time-sensitive", "previews", "schedule"]
    public static let scheduleKeys = ["days", "start", "end"]

    /// All key names, for documentation checks.
    public static var allKeys: [String] {
        Array(Set(downstreamKeys + generalKeys + summaryKeys + appKeys + focusKeys + scheduleKeys)).sorted()
    }
}
