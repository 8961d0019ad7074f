import FocusBridgeTime

/// The bridge's verdict on one notification, with the trace of every rule consulted, so the
/// daemon and `focusctl explain` tell the same story from the same code.
public struct Decision: Equatable, Sendable {
    public var app: AppIdentity
    public var level: InterruptionLevel
    public var outcome: DeliveryOutcome
    public var communication: Communication?
    public var actions: ActionNormaliser.Result
    public var presentation: Presentation
    /// For `coalesced`: the earlier notification this one replaces.
    public var replaces: UInt32?
    /// One line per rule consulted, in order.
    public var trace: [String]
    /// The duplicate tracker's key of the notification, when the decision made it: delivering
    /// the notification remembers it by this key (`DuplicateTracker.delivered(key:)`).
    public var duplicateKey: DuplicateTracker.Key?

    /// How it is shown, when it is.
    public var shown: Shown { Shown(app: app, level: level, actions: actions, presentation: presentation) }
}

/// How a notification is shown: what the daemon's `Notify` is built from besides the client's
/// own arguments.
public struct Shown: Equatable, Sendable {
    public var app: AppIdentity
    public var level: InterruptionLevel
    public var actions: ActionNormaliser.Result
    public var presentation: Presentation
}

/// The live state a decision depends on besides the notification itself.
public struct PolicyContext: Sendable {
    public var settings: PolicySettings
    public var now: Instant
    public var silent: Bool
    public var screenLocked: Bool
    /// The daemon's capabilities.
    public var capabilities: [String]
    public var activeFocus: FocusProfile?
    /// What was delivered recently and each app's rate, read in place from the bridge's own
    /// tables (`DeliveryTables`): a context never copies them.
    public var tables: DeliveryTables
    /// The duplicate tracker. Setting it gives this context a table of its own (a test, an
    /// `explain` that leaves a notification out); the bridge's stays as it is.
    public var recent: DuplicateTracker {
        get { tables.recent }
        set { tables = DeliveryTables(recent: newValue, flood: tables.flood) }
    }
    /// The rate limits, read and set as `recent` is.
    public var flood: FloodGate {
        get { tables.flood }
        set { tables = DeliveryTables(recent: tables.recent, flood: newValue) }
    }
    /// How many buttons the daemon shows at most, when it is known to show fewer than four.
    public var daemonButtonLimit: Int?
    /// The window in front, when the window watcher knows it.
    public var focusedWindow: FocusedWindow?
    /// The process that sent the notification, when known (to match the focused window).
    public var senderProcessID: UInt32?
    /// The daemon runs a notification's only action on a click (dunst).
    public var clickRunsSoleAction = false
    /// The person's run-time choices per app (they win over the file's `[apps]`).
    public var choices: AppChoices
    /// The apps muted now.
    public var mutes: MuteList

    public init(settings: PolicySettings = PolicySettings(), now: Instant = Instant(), silent: Bool = false,
                screenLocked: Bool = false, capabilities: [String] = ["actions", "body"],
                activeFocus: FocusProfile? = nil, recent: DuplicateTracker = DuplicateTracker(),
                flood: FloodGate = FloodGate(limit: 0), tables: DeliveryTables? = nil, daemonButtonLimit: Int? = nil,
                choices: AppChoices = AppChoices(), mutes: MuteList = MuteList(), clickRunsSoleAction: Bool = false,
                focusedWindow: FocusedWindow? = nil) {
        self.settings = settings
        self.now = now
        self.silent = silent
        self.screenLocked = screenLocked
        self.capabilities = capabilities
        self.activeFocus = activeFocus
        self.tables = tables ?? DeliveryTables(recent: recent, flood: flood)
        self.daemonButtonLimit = daemonButtonLimit
        self.choices = choices
        self.mutes = mutes
        self.clickRunsSoleAction = clickRunsSoleAction
        self.focusedWindow = focusedWindow
    }

    /// The app's rule: the file's `[apps]` table with the person's choices put in.
    public func rule(forApp key: String) -> (rule: AppRule, trace: [String]) {
        choices.apply(to: settings.rule(forApp: key), app: key)
    }

    /// `app`'s rule, its `[apps]` table found by its key or its name (`PolicySettings.table(for:)`),
    /// with the person's choices for its key put in; `table`: the table that applies, if any.
    public func rule(for app: AppIdentity) -> (rule: AppRule, trace: [String], table: (name: String, byName: Bool)?) {
        let table = settings.table(for: app)
        let (rule, trace) = choices.apply(to: table?.rule ?? AppRule(), app: app.key)
        return (rule, trace, table.map { ($0.name, $0.byName) })
    }
}

/// Decides level, delivery, actions and presentation for a notification (focus-bridge.toml(5): INTERRUPTION
/// LEVELS, DELIVERY, ACTIONS).
public enum Policy {
    public static func decide(_ notification: NotificationRequest, app: AppIdentity, context: PolicyContext) -> Decision {
        let settings = context.settings
        let (rule, choices, table) = context.rule(for: app)
        // A decision's trace is about a dozen lines: room for them at once, not grown 1, 2, 4, 8, 16.
        var trace: [String] = []
        trace.reserveCapacity(16)
        trace.append(.joining("app: ", app.key, " (from the ", app.source.rawValue, app.via.map { ", via " + $0 } ?? "", ")",
                              Self.claimed(app, notification),
                              table.map { $0.byName ? "; [apps.\"\($0.name)\"] applies (matched the app name)"
                                                    : "; [apps.\"\(app.key)\"] applies" } ?? "; no [apps] rule"))
        trace += choices
        let marketing = Marketing.isMarketing(notification)
        let (shown, communication) = show(notification, app: app, rule: rule, context: context,
                                          focusPreviews: context.activeFocus?.previews, marketing: marketing,
                                          quickActions: rule.quickActions ?? settings.general.quickActions, trace: &trace)
        var replaces: UInt32?
        var duplicateKey: DuplicateTracker.Key?
        let outcome = delivery(notification, app: app, rule: rule, level: shown.level, communication: communication,
                               marketing: marketing, context: context, replaces: &replaces, duplicateKey: &duplicateKey,
                               trace: &trace)
        return Decision(app: app, level: shown.level, outcome: outcome, communication: communication,
                        actions: shown.actions, presentation: shown.presentation, replaces: replaces, trace: trace,
                        duplicateKey: duplicateKey)
    }

    /// What a sandboxed sender called itself, when not its key: kept in the trace, never used.
    private static func claimed(_ app: AppIdentity, _ notification: NotificationRequest) -> String {
        guard app.isSandboxed else { return "" }
        let claim = notification.desktopEntry ?? notification.appName
        guard !claim.isEmpty, claim != app.key else { return "" }
        return .joining("; it calls itself \"", claim, "\", which decides nothing")
    }

    /// How a notification is shown when it is shown now, without the delivery rules (§3): for
    /// the bridge's own notifications (digests, "N more from App") and held ones replayed. No
    /// Focus's previews apply: what a Focus held is shown once it is over or asked for.
    /// `level`: the level the bridge gives its own notification (a digest is active, an "N more"
    /// passive), in the place of the level a sender asks for; nil for a sender's own.
    public static func present(_ notification: NotificationRequest, app: AppIdentity, level: InterruptionLevel? = nil,
                               context: PolicyContext) -> Shown {
        var trace: [String] = []
        return show(notification, app: app, rule: context.rule(for: app).rule, context: context, asked: level,
                    focusPreviews: nil, marketing: Marketing.isMarketing(notification), quickActions: [], trace: &trace).shown
    }

    /// Level (§2), actions (§4) and presentation, in the order the trace tells them.
    private static func show(_ notification: NotificationRequest, app: AppIdentity, rule: AppRule, context: PolicyContext,
                             asked: InterruptionLevel? = nil, focusPreviews: PreviewMode?, marketing: Bool, quickActions: [QuickAction],
                             trace: inout [String]) -> (shown: Shown, communication: Communication?) {
        let settings = context.settings
        var level = LevelResolver.resolve(notification, rule: rule, asked: asked, webPage: app.isWebPage, trace: &trace)
        if marketing && level != .passive {
            level = .passive
            trace.append("level: passive (a marketing notification is never more)")
        }
        let communication = Communication.detect(notification, rule: rule)
        if let communication { trace.append("communication: from \(communication.person)") }

        var actions = ActionNormaliser.normalise(notification.actions,
                                                 destructiveKeys: notification.hints[ActionNormaliser.destructiveHint].flatMap {
                                                     if case .strings(let keys) = $0 { keys } else { nil }
                                                 } ?? [],
                                                 settings: settings.general, daemonLimit: context.daemonButtonLimit)
        trace += actions.trace
        if context.capabilities.contains("actions") && !quickActions.isEmpty {
            addQuickActions(quickActions, to: &actions, level: level, context: context, trace: &trace)
        }

        var previews = rule.previews ?? settings.general.previews
        if let focusPreviews { previews = previews.stricter(focusPreviews) }
        let presentation = Presentation.make(level: level, notification: notification,
                                             appName: notification.appName.isEmpty ? app.key : notification.appName,
                                             previews: previews, screenLocked: context.screenLocked,
                                             silent: context.silent, capabilities: context.capabilities,
                                             keepOnScreen: LevelResolver.keepsOnScreen(notification, webPage: app.isWebPage))
        trace += presentation.trace
        return (Shown(app: app, level: level, actions: actions, presentation: presentation), communication)
    }

    /// Puts the quick actions that fit after the app's own buttons (before an inline reply).
    private static func addQuickActions(_ wanted: [QuickAction], to actions: inout ActionNormaliser.Result,
                                        level: InterruptionLevel, context: PolicyContext, trace: inout [String]) {
        let general = context.settings.general
        let limit = min(max(general.maxActions, 0), ActionNormaliser.buttonLimit, context.daemonButtonLimit ?? ActionNormaliser.buttonLimit)
        // Counted, not filtered into a new array.
        var buttons = 0
        for action in actions.actions where action.key != "default" && action.key != "inline-reply" { buttons += 1 }
        if context.clickRunsSoleAction && buttons < 2 && !actions.actions.contains(where: { $0.key == "default" }) {
            trace.append("actions: no quick actions (the daemon runs a notification's only action on a click; "
                         + "one added would change what the click does)")
            return
        }
        let quick = QuickAction.fitting(wanted, level: level, buttons: buttons, limit: limit, trace: &trace)
        guard !quick.isEmpty else { return }
        let reply = actions.actions.firstIndex { $0.key == "inline-reply" } ?? actions.actions.endIndex
        actions.actions.insert(contentsOf: quick.lazy.map { ActionPair(key: $0.key, label: $0.label) }, at: reply)
    }

    /// Whether a replayed held notification counts toward its app's rate limit: as a new one
    /// delivered would, so not when it repeats one still open (`decide` would coalesce it).
    public static func replayCounts(_ notification: NotificationRequest, app: AppIdentity, context: PolicyContext) -> Bool {
        guard notification.replacesID == 0 else { return false }
        if context.settings.table(for: app)?.rule.delivery == .off { return true }
        return context.recent.original(appKey: app.key, summary: notification.summary, body: notification.body,
                                       now: context.now, window: Double(context.settings.general.coalesceSeconds)) == nil
    }

    /// The delivery rules of §3, in order: off, duplicate, summary, Focus, deliver.
    private static func delivery(_ notification: NotificationRequest, app: AppIdentity, rule: AppRule,
                                 level: InterruptionLevel, communication: Communication?, marketing: Bool,
                                 context: PolicyContext, replaces: inout UInt32?, duplicateKey: inout DuplicateTracker.Key?,
                                 trace: inout [String]) -> DeliveryOutcome {
        if rule.delivery == .off {
            trace.append("delivery: dropped (the app's delivery is off)")
            return .dropped
        }
        if let until = context.mutes.mutedUntil(app.key, at: context.now) {
            if level == .critical {
                trace.append("mute: \(app.key) is muted until \(Fate.localTime(until, now: context.now)), but the critical level "
                             + "(the app's critical entitlement) breaks through")
            } else {
                trace.append("delivery: muted (\(app.key) is muted until \(Fate.localTime(until, now: context.now)), urgent ones too; "
                             + "`focusctl unmute \(app.key)` ends it)")
                return .muted
            }
        }
        if marketing && !rule.marketing {
            trace.append("delivery: dropped (a marketing notification, and \(app.key) is not allowed marketing: "
                         + "`marketing = true` in its [apps] table, or `focusctl app \(app.key) marketing on`)")
            return .dropped
        }
        let window = Double(context.settings.general.coalesceSeconds)
        if window > 0 { duplicateKey = DuplicateTracker.Key(app: app.key, summary: notification.summary, body: notification.body) }
        if let duplicateKey, let original = context.recent.original(duplicateKey, now: context.now, window: window) {
            replaces = original
            trace.append("delivery: coalesced (the same as notification \(original), still open, less than \(Int(min(window, 1e9))) s ago)")
            return .coalesced
        }
        if let window = context.focusedWindow, level == .passive || level == .active,
           (rule.whenFocused ?? context.settings.general.whenFocused) == .hide,
           window.isApp(app.key, senderProcessID: context.senderProcessID)
            || app.inferredDesktopEntry.map({ window.isApp($0) }) == true {
            trace.append("delivery: foreground (\(window.name) is the window in front; `when-focused = \"show\"` shows it anyway)")
            return .foreground
        }
        if marketing {
            if !context.settings.summaryTimes.isEmpty {
                trace.append("delivery: held-summary (marketing waits for the scheduled summary)")
                return .heldSummary
            }
            if let focus = context.activeFocus {
                trace.append("delivery: held-focus (marketing never breaks through a Focus; \(focus.name) is on)")
                return .heldFocus
            }
        }
        if rule.delivery == .summary {
            if context.settings.summaryTimes.isEmpty {
                trace.append("summary: not held (no [summary] times: no summary would ever deliver it)")
            } else if level == .timeSensitive || level == .critical {
                trace.append("summary: not held (\(level.rawValue) overrides scheduled delivery)")
            } else if communication != nil {
                trace.append("summary: not held (communication notifications are not summarised)")
            } else if isTransient(notification) {
                trace.append("summary: not held (transient or progress notifications are never held)")
            } else {
                trace.append("delivery: held-summary (the app's delivery is summary)")
                return .heldSummary
            }
        }
        if let focus = context.activeFocus {
            if let reason = breakThrough(focus: focus, app: app, level: level, communication: communication)
                ?? repeatedCall(focus: focus, communication: communication, context: context) {
                trace.append("focus: \(focus.name) is on; breaks through (\(reason))")
            } else {
                trace.append("delivery: held-focus (\(focus.name) is on and nothing lets it through)")
                return .heldFocus
            }
        }
        let isUpdate = notification.replacesID != 0
        if level != .critical, !isUpdate, context.flood.isFlooding(app.key, at: context.now) {
            trace.append("delivery: collapsed (\(app.key) sent more than \(context.flood.limit) in \(Int(min(context.flood.window, 1e9))) s; "
                         + "counted in its \"more from\" notification)")
            return .collapsed
        }
        trace.append("delivery: delivered")
        return .delivered
    }

    /// Why a notification breaks through a Focus, or nil when it does not.
    public static func breakThrough(focus: FocusProfile, app: AppIdentity, level: InterruptionLevel,
                                    communication: Communication?) -> String? {
        if level == .critical { return "critical" }
        if level == .timeSensitive && focus.timeSensitive { return "time-sensitive, and the Focus allows it" }
        if focus.apps.allows(app.key) {
            if case .silence = focus.apps { return "the app is not silenced" }
            return "the app is allowed"
        }
        if let communication, focus.allows(person: communication.person) { return "\(communication.person) is allowed" }
        return nil
    }

    /// Why a call breaks through as a repeated one, or nil: the same person called within the
    /// last 3 minutes and the Focus allows repeated calls.
    static func repeatedCall(focus: FocusProfile, communication: Communication?, context: PolicyContext) -> String? {
        guard focus.repeatedCalls, let communication, communication.isCall,
              let earlier = context.tables.calls.calledRecently(communication.person, now: context.now) else { return nil }
        let ago = Int(context.now.timeIntervalSince1970 - earlier.timeIntervalSince1970)
        return "a repeated call: \(communication.person) called \(ago) s ago, within 3 minutes, and the Focus allows repeated calls"
    }

    /// Transient notifications, progress bars and stacked ones are worthless later.
    public static func isTransient(_ notification: NotificationRequest) -> Bool {
        if case .bool(true) = notification.hints["transient"] { return true }
        if notification.hints["transient"]?.integer.map({ $0 != 0 }) == true { return true }
        if notification.hints["value"] != nil { return true }
        return ["x-dunst-stack-tag", "x-canonical-private-synchronous", "synchronous", "private-synchronous"]
            .contains { notification.hints[$0] != nil }
    }
}
