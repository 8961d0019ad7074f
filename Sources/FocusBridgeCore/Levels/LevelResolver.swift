/// Gives a notification its interruption level: the table of focus-bridge.toml(5), INTERRUPTION LEVELS, first rule that
/// applies wins, then the entitlement and the user's Time Sensitive switch.
public enum LevelResolver {
    public static let levelHint = "x-focus-interruption-level"

    static let criticalCategories: Set<String> = ["cellbroadcast.amber-alert", "cellbroadcast.public-safety", "weather.warning.extreme"]
    static let criticalCategoryPrefixes = ["cellbroadcast.danger."]
    static let timeSensitiveCategories: Set<String> = ["call", "call.incoming", "alarm.ringing", "os.battery.low"]
    static let passiveCategories: Set<String> = ["network.connected", "network.disconnected", "device.added", "device.removed",
                                                 "transfer.complete", "cellbroadcast.test"]
    static let passiveCategoryPrefixes = ["presence."]

    /// The urgency hint (any integer type), clamped to 0…2; nil when absent or not an integer.
    public static func urgency(of notification: NotificationRequest) -> Int? {
        guard let value = notification.hints["urgency"]?.integer else { return nil }
        return Int(min(max(value, 0), 2))
    }

    public static func category(of notification: NotificationRequest) -> String? {
        notification.hints["category"]?.string.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The level, with one trace line for the rule that decided and one per adjustment.
    /// `webPage`: a browser sent it for a web page (`AppIdentity.isWebPage`).
    public static func resolve(_ notification: NotificationRequest, rule: AppRule,
                               webPage: Bool = false) -> (level: InterruptionLevel, trace: [String]) {
        var trace: [String] = []
        let level = resolve(notification, rule: rule, webPage: webPage, trace: &trace)
        return (level, trace)
    }

    /// Whether a notification asks to stay on screen rather than to interrupt: urgency 2 from a
    /// web page, which a Chromium-family browser sends for every page that sets
    /// `requireInteraction` (with expire timeout 0). Such a notification is `active` by rule 5,
    /// and reaches the daemon with urgency 2 all the same (`Presentation`), as daemons that
    /// ignore the timeout keep only critical ones on screen.
    public static func keepsOnScreen(_ notification: NotificationRequest, webPage: Bool) -> Bool {
        webPage && urgency(of: notification) == 2
    }

    /// The level, its trace lines appended to `trace` (the decision's: no array of their own).
    /// `asked`: the level the bridge gives its own notification, in the place of rule 2's hint.
    static func resolve(_ notification: NotificationRequest, rule: AppRule, asked: InterruptionLevel? = nil,
                        webPage: Bool = false, trace: inout [String]) -> InterruptionLevel {
        var level = tableLevel(notification, rule: rule, asked: asked, webPage: webPage, trace: &trace)
        if level == .critical && !rule.critical {
            level = .timeSensitive
            trace.append("level: critical needs the app's `critical = true` entitlement → time-sensitive")
        }
        if level == .timeSensitive && !rule.timeSensitive {
            level = .active
            if case .choice = rule.origin(of: "time-sensitive") {
                trace.append("level: Time Sensitive is turned off for the app (a choice) → active")
            } else {
                trace.append("level: the app has `time-sensitive = false` → active")
            }
        }
        return level
    }

    private static func tableLevel(_ notification: NotificationRequest, rule: AppRule, asked: InterruptionLevel?,
                                   webPage: Bool, trace: inout [String]) -> InterruptionLevel {
        if let level = rule.level {
            trace.append("level: \(level.rawValue) (rule 1: the app's `level` setting)")
            return level
        }
        if let asked {
            trace.append("level: \(asked.rawValue) (rule 2: the bridge's own notification)")
            return asked
        }
        if let text = notification.hints[levelHint]?.string {
            if let level = InterruptionLevel(rawValue: text) {
                trace.append("level: \(level.rawValue) (rule 2: hint \(levelHint))")
                return level
            }
            trace.append("level: hint \(levelHint) = \"\(text)\" is not a level; ignored")
        }
        let category = category(of: notification)
        if let category, criticalCategories.contains(category) || criticalCategoryPrefixes.contains(where: category.hasPrefix) {
            trace.append("level: critical (rule 3: category \(category))")
            return .critical
        }
        if let category, timeSensitiveCategories.contains(category) {
            trace.append("level: time-sensitive (rule 4: category \(category))")
            return .timeSensitive
        }
        let urgency = urgency(of: notification)
        if urgency == nil, let raw = notification.hints["urgency"] {
            trace.append("level: urgency hint of type \(raw) is not an integer; ignored")
        }
        // The GTK door's `priority` arrives as the urgency it means (`GtkNotification`), named as sent.
        let gtk = notification.door == .gtk
        if urgency == 2 {
            let said = gtk ? "priority urgent" : "urgency critical"
            if rule.critical {
                trace.append("level: critical (rule 5: \(said), from an entitled app)")
                return .critical
            }
            if webPage {
                trace.append("level: active (rule 5: urgency critical from a web page asks to keep it on screen "
                             + "(requireInteraction), which is not time-sensitive)")
                return .active
            }
            trace.append("level: time-sensitive (rule 5: \(said))")
            return .timeSensitive
        }
        if urgency == 0 {
            trace.append("level: passive (rule 6: \(gtk ? "priority low" : "urgency low"))")
            return .passive
        }
        if let category, passiveCategories.contains(category) || passiveCategoryPrefixes.contains(where: category.hasPrefix) {
            trace.append("level: passive (rule 6: category \(category))")
            return .passive
        }
        trace.append("level: active (rule 7: no other rule applies)")
        return .active
    }
}
