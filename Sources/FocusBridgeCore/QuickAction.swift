/// The bridge's own buttons, put on a notification after the app's own where there is room:
/// the choice made where the notification is (focus-bridge.toml(5), QUICK ACTIONS). Invoking
/// one mutes the app or turns its Time Sensitive off, closes the notification, and the app
/// never hears the key.
public enum QuickAction: String, CaseIterable, Sendable {
    case muteHour = "mute-hour"
    case turnOffTimeSensitive = "turn-off-time-sensitive"

    /// The key the daemon sends back; no app's key may start like this (`ActionNormaliser` drops one).
    public var key: String { Self.keyPrefix + rawValue }
    /// What every quick action's key starts with; an app's action that does is dropped.
    public static let keyPrefix = "x-focus-quick."

    public var label: String {
        switch self {
        case .muteHour: "Mute 1 Hour"
        case .turnOffTimeSensitive: "Turn Off Time Sensitive"
        }
    }

    /// The quick action a key the daemon sent back stands for.
    public static func action(forKey key: String) -> QuickAction? { allCases.first { $0.key == key } }

    /// Which of `wanted` fit on a notification of `level` with `buttons` of the app's own, under
    /// `limit` buttons: never before the app's actions, never in a slot the app's actions need.
    static func fitting(_ wanted: [QuickAction], level: InterruptionLevel, buttons: Int, limit: Int,
                        trace: inout [String]) -> [QuickAction] {
        let applicable = wanted.filter { action in
            switch action {
            case .muteHour: level != .critical
            case .turnOffTimeSensitive: level == .timeSensitive
            }
        }
        guard !applicable.isEmpty else { return [] }
        let room = max(limit - buttons, 0)
        let fitting = Array(applicable.prefix(room))
        if !fitting.isEmpty {
            trace.append("actions: quick actions added after the app's: " + quotedLabels(fitting[...]))
        }
        if fitting.count < applicable.count {
            trace.append("actions: no room for " + quotedLabels(applicable.dropFirst(fitting.count))
                         + " (the app's own actions come first)")
        }
        return fitting
    }

    /// `"A", "B"`: the labels quoted, in one string (no array of pieces to join; every Notify
    /// with quick actions says it in its trace).
    private static func quotedLabels(_ actions: ArraySlice<QuickAction>) -> String {
        var text = ""
        for action in actions {
            if !text.isEmpty { text += ", " }
            text += "\""
            text += action.label
            text += "\""
        }
        return text
    }
}
