import FocusBridgeTime

/// How much of a notification's content may be shown.
public enum PreviewMode: String, CaseIterable, Sendable {
    case always
    case whenUnlocked = "when-unlocked"
    case never

    /// The more private of two modes (a Focus can only make previews more private).
    func stricter(_ other: PreviewMode) -> PreviewMode {
        let order: [PreviewMode] = [.always, .whenUnlocked, .never]
        return order.firstIndex(of: self)! >= order.firstIndex(of: other)! ? self : other
    }
}

/// When an app's notifications are delivered.
public enum AppDelivery: String, CaseIterable, Sendable {
    case immediate, summary, off
}

/// What happens to what a Focus held, when it ends.
public enum AfterFocus: String, CaseIterable, Sendable {
    case digest, replay, none
}

/// What becomes of notifications below time-sensitive while the screen is locked.
public enum WhileLocked: String, CaseIterable, Sendable {
    /// Forwarded as always: the daemon keeps them (dunst's idle_threshold, GNOME's lock screen).
    case show
    /// Held, and delivered as one "While you were away" digest at the unlock.
    case hold
}

/// The `[general]` table.
public struct GeneralSettings: Equatable, Sendable {
    public static let defaultDestructiveLabels = ["Delete", "Remove", "Discard", "Erase", "Trash", "Block", "Uninstall"]

    public var previews: PreviewMode = .always
    /// Buttons forwarded at most (never more than 4).
    public var maxActions = 4
    public var destructiveLabels = GeneralSettings.defaultDestructiveLabels
    public var destructiveMarker = "⚠ "
    public var coalesceSeconds = 120
    public var afterFocus: AfterFocus = .digest
    public var historyDays = 7
    /// The most disk the history takes, in MiB (`HistorySize`): the oldest go first.
    public var historyMaxMB = 64
    /// At most this many notifications per app in `rateLimitSeconds` (0: no limit).
    public var rateLimit = 20
    public var rateLimitSeconds = 10
    /// The first time an app's notification is Time Sensitive, the bridge says what that means
    /// and offers to turn it off (once per app, ever).
    public var explainTimeSensitive = true
    /// The bridge's own buttons added where there is room (`[]`: none).
    public var quickActions: [QuickAction] = [.muteHour, .turnOffTimeSensitive]
    /// Whether a notification from the app in front is shown (below time-sensitive).
    public var whenFocused: WhenFocused = .hide
    /// Unread counts published for docks (`com.canonical.Unity.LauncherEntry`).
    public var badges = true
    /// The tray switch (a StatusNotifierItem), shown whenever a tray is there.
    public var tray = true
    public var whileLocked: WhileLocked = .show
    /// The periodic review of the apps whose Time Sensitive notifications were mostly left
    /// alone (`TimeSensitiveReview`).
    public var timeSensitiveReview: ReviewFrequency = .weekly

    public init() {}
}

/// An `[apps."KEY"]` table: the user's settings for one application.
public struct AppRule: Equatable, Sendable {
    public var delivery: AppDelivery = .immediate
    /// A level forced on every notification of the app.
    public var level: InterruptionLevel?
    /// Off: the user turned Time Sensitive off for the app; it gets `active` instead.
    public var timeSensitive = true
    /// The entitlement to `critical`.
    public var critical = false
    /// Every notification of the app is a communication notification.
    public var communication = false
    public var previews: PreviewMode?
    /// The app may send marketing notifications (passive, held for the summary).
    public var marketing = false
    /// The app's own quick actions, when it has a `quick-actions` key (else `[general]`'s).
    public var quickActions: [QuickAction]?
    /// The app's own `when-focused`, else `[general]`'s.
    public var whenFocused: WhenFocused?
    /// The app's unread count is published for docks (with `[general] badges`).
    public var badges = true
    /// Where each key that is not at its default comes from: the file's line, or a choice.
    public var origins: [String: SettingOrigin] = [:]

    public init() {}

    /// Where `key`'s value comes from.
    public func origin(of key: String) -> SettingOrigin { origins[key] ?? .byDefault }
}

/// Everything the policy needs from the configuration file.
public struct PolicySettings: Equatable, Sendable {
    public var general = GeneralSettings()
    /// Local times of the scheduled summary.
    /// When the scheduled summary comes; none unless configured (the summary is opt-in).
    public var summaryTimes: [TimeOfDay] = []
    /// Per-app rules, by app key as written (looked up without regard to case).
    public var apps: [String: AppRule] = [:]
    /// Focus profiles in the order of the file.
    public var focuses: [FocusProfile] = []

    public init() {}

    /// The rule for an app key (case-insensitive), or the defaults.
    public func rule(forApp key: String) -> AppRule {
        // No `[apps]` table (often): no key hashed or lowercased.
        guard !apps.isEmpty else { return AppRule() }
        if let rule = apps[key] { return rule }
        let lowered = key.lowercasedCheaply()
        return apps.first { $0.key.lowercased() == lowered }?.value ?? AppRule()
    }

    /// The `[apps]` table that applies to `app`, as written in the file: the one named by its key
    /// (any case), else the one named by its name (`AppIdentity.name`, any case). One dictionary
    /// lookup and at most one pass over the tables, as `rule(forApp:)`.
    public func table(for app: AppIdentity) -> (name: String, rule: AppRule, byName: Bool)? {
        guard !apps.isEmpty else { return nil }
        if let rule = apps[app.key] { return (app.key, rule, false) }
        let key = app.key.lowercasedCheaply()
        let name = app.name?.lowercasedCheaply()
        var byName: (name: String, rule: AppRule, byName: Bool)?
        for (written, rule) in apps {
            let lowered = written.lowercasedCheaply()
            if lowered == key { return (written, rule, false) }
            if byName == nil, lowered == name { byName = (written, rule, true) }
        }
        return byName
    }

    /// Whether the file has a rule for this app (for the trace).
    public func hasRule(forApp key: String) -> Bool {
        guard !apps.isEmpty else { return false }
        let lowered = key.lowercasedCheaply()
        return apps.keys.contains { $0.lowercased() == lowered }
    }

    /// The Focus profiles that can be on: the file's, in its order, then the built-in Do Not
    /// Disturb (`FocusProfile.doNotDisturb`) unless the file has a `[focus.dnd]` of its own.
    public var profiles: [FocusProfile] {
        let dnd = FocusProfile.doNotDisturbName
        return focuses.contains { $0.name.lowercased() == dnd } ? focuses : focuses + [.doNotDisturb]
    }

    /// The profile of this name (exact, else case-insensitive), the built-in `dnd` included.
    public func focus(named name: String) -> FocusProfile? {
        let all = profiles
        return all.first { $0.name == name } ?? all.first { $0.name.lowercased() == name.lowercased() }
    }
}
