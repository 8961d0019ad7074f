/// Every table and key the configuration file knows; the reader checks names against it and
/// the documentation tests check the man page against it.
public enum Schema {
    public static let tables = ["downstream", "general", "summary", "apps", "focus", "share"]
    public static let downstreamKeys = ["mode", "command", "name", "address", "passthrough-names", "session-names"]
    public static let generalKeys = ["previews", "max-actions", "destructive-labels", "destructive-marker",
                                     "coalesce-seconds", "after-focus", "history-days", "rate-limit",
                                     "rate-limit-seconds", "explain-time-sensitive", "quick-actions", "when-focused",
                                     "badges", "tray"]
    public static let summaryKeys = ["times"]
    public static let appKeys = ["delivery", "level", "time-sensitive", "critical", "communication", "previews",
                                 "marketing", "quick-actions", "when-focused", "badges"]
    public static let focusKeys = ["apps", "silence", "people", "time-sensitive", "previews", "schedule",
                                   "while-fullscreen", "while-focused"]
    public static let scheduleKeys = ["days", "start", "end"]
    public static let shareKeys = ["folder", "device"]

    /// All key names, for documentation checks.
    public static var allKeys: [String] {
        Array(Set(downstreamKeys + generalKeys + summaryKeys + appKeys + focusKeys + scheduleKeys + shareKeys)).sorted()
    }
}
