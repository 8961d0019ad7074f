/// The bridge's own buttons, put on a notification after the app's own where there is room:
/// the choice made where the notification is (focus-bridge.toml(5), QUICK ACTIONS). Invoking
/// one mutes the app or turns its Time Sensitive off, closes the notification, and the app
/// never hears the key.
public enum QuickAction: String, CaseIterable, Sendable {
    case muteHour = "mute-hour"
    case turnOffTimeSensitive = "turn-off-time-sensitive"
    /// Off the screen for an hour, its app not told, then shown again as itself.
    case snoozeHour = "snooze-hour"

    /// The key the daemon sends back; no app's key may start like this (`ActionNormaliser` drops one).
    public var key: String {
        switch self {
        case .muteHour: Self.muteHourKey
        case .turnOffTimeSensitive: Self.turnOffTimeSensitiveKey
        case .snoozeHour: Self.snoozeHourKey
        }
    }

    /// The keys made once: one is asked for on every `Notify` given quick actions.
    private static let muteHourKey = keyPrefix + QuickAction.muteHour.rawValue
    private static let turnOffTimeSensitiveKey = keyPrefix + QuickAction.turnOffTimeSensitive.rawValue
    private static let snoozeHourKey = keyPrefix + QuickAction.snoozeHour.rawValue

    /// The trace line of quick actions added, before their labels.
    private static let added = "actions: quick actions added after the app's: "
    /// The line for this one added alone (as on most notifications given quick actions), made once.
    private static let muteHourAlone = added + quotedLabels([.muteHour])
    private static let turnOffTimeSensitiveAlone = added + quotedLabels([.turnOffTimeSensitive])
    private static let snoozeHourAlone = added + quotedLabels([.snoozeHour])

    private var addedAlone: String {
        switch self {
        case .muteHour: Self.muteHourAlone
        case .turnOffTimeSensitive: Self.turnOffTimeSensitiveAlone
        case .snoozeHour: Self.snoozeHourAlone
        }
    }
    /// What every quick action's key starts with; an app's action that does is dropped.
    public static let keyPrefix = "x-focus-quick."

    public var label: String {
        switch self {
        case .muteHour: "Mute 1 Hour"
        case .turnOffTimeSensitive: "Turn Off Time Sensitive"
        case .snoozeHour: "Snooze 1 Hour"
        }
    }

    /// The quick action a key the daemon sent back stands for.
    public static func action(forKey key: String) -> QuickAction? { allCases.first { $0.key == key } }

    /// Which of `wanted` fit on a notification of `level` with `buttons` of the app's own, under
    /// `limit` buttons: never before the app's actions, never in a slot the app's actions need.
    static func fitting(_ wanted: [QuickAction], level: InterruptionLevel, buttons: Int, limit: Int,
                        trace: inout [String]) -> ArraySlice<QuickAction> {
        func applies(_ action: QuickAction) -> Bool {
            switch action {
            case .muteHour: level != .critical
            case .turnOffTimeSensitive: level == .timeSensitive
            // A critical one stays until it is dealt with, as it is never muted.
            case .snoozeHour: level != .critical
            }
        }
        // Filtered only when some do not apply (no array made on the way of most `Notify` calls).
        let applicable = wanted.allSatisfy(applies) ? wanted : wanted.filter(applies)
        guard !applicable.isEmpty else { return [] }
        let room = max(limit - buttons, 0)
        let fitting = applicable.prefix(room)
        if fitting.count == 1, let only = fitting.first {
            trace.append(only.addedAlone)
        } else if !fitting.isEmpty {
            trace.append(Self.added + quotedLabels(fitting))
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
        for action in actions { text = .joining(text, text.isEmpty ? "\"" : ", \"", action.label, "\"") }
        return text
    }
}
