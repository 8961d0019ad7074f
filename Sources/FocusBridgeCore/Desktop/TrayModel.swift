import FocusBridgeTime

/// What the tray switch shows (focus-bridge(1), TRAY): the icon, the tooltip and the menu, made
/// from the bridge's state alone. The server turns it into a StatusNotifierItem and a
/// `com.canonical.dbusmenu` menu.
public struct TrayModel: Equatable, Sendable {
    /// The state it is made from.
    public struct State: Equatable, Sendable {
        public var focusNames: [String]
        public var activeFocus: String?
        public var focusUntil: Instant?
        public var silent: Bool
        public var heldFocus: Int
        public var heldSummary: Int
        public var snoozed: Int
        public var mutes: [MuteList.Mute]

        public init(focusNames: [String], activeFocus: String? = nil, focusUntil: Instant? = nil, silent: Bool = false,
                    heldFocus: Int = 0, heldSummary: Int = 0, snoozed: Int = 0, mutes: [MuteList.Mute] = []) {
            self.focusNames = focusNames
            self.activeFocus = activeFocus
            self.focusUntil = focusUntil
            self.silent = silent
            self.heldFocus = heldFocus
            self.heldSummary = heldSummary
            self.snoozed = snoozed
            self.mutes = mutes
        }
    }

    /// What a menu item does: what the matching `focusctl` command does.
    public enum Command: Equatable, Sendable {
        case focusOn(String), focusOff, toggleSilent, deliverSummary, reload
    }

    public struct Item: Equatable, Sendable {
        public enum Toggle: String, Sendable { case none = "", checkmark, radio }
        public var id: Int32
        public var label: String
        public var isSeparator = false
        public var toggle = Toggle.none
        public var isOn = false
        public var enabled = true
        public var command: Command?
    }

    /// Menu item IDs: the fixed entries, then one per Focus from `firstFocusID` in the order of
    /// the configuration (a Focus keeps its ID while the list stays the same).
    public static let offID: Int32 = 1, silentID: Int32 = 2, summaryID: Int32 = 3, reloadID: Int32 = 4
    static let separatorIDs: [Int32] = [5, 6]
    public static let firstFocusID: Int32 = 100
    /// The most Focus entries the menu lists.
    public static let maxFocusItems = 50

    public static let focusIcon = "notification-disabled-symbolic"
    public static let silentIcon = "audio-volume-muted-symbolic"
    public static let idleIcon = "preferences-system-notifications-symbolic"

    public enum Look: String, Sendable { case focus, silent, none }

    public var look: Look
    public var iconName: String
    public var title: String
    /// The tooltip's text, a line per fact.
    public var tooltip: String
    /// The menu's items in order (children of the root, ID 0).
    public var items: [Item]

    public init(_ state: State, now: Instant, timeZone: TimeZoneRules) {
        look = state.activeFocus != nil ? .focus : state.silent ? .silent : .none
        iconName = switch look { case .focus: Self.focusIcon; case .silent: Self.silentIcon; case .none: Self.idleIcon }
        var lines: [String] = []
        if let focus = state.activeFocus {
            title = "Focus: \(focus)"
            lines.append(state.focusUntil.map { "\(focus) is on until \(Self.time($0, now: now, timeZone: timeZone))" }
                         ?? "\(focus) is on")
        } else {
            title = state.silent ? "Silent" : "No Focus"
            lines.append("No Focus is on")
        }
        if state.silent { lines.append("Silent: no sounds") }
        if state.heldFocus > 0 { lines.append("\(state.heldFocus) held by the Focus") }
        if state.heldSummary > 0 { lines.append("\(state.heldSummary) waiting for the summary") }
        if state.snoozed > 0 { lines.append("\(state.snoozed) snoozed") }
        for mute in state.mutes.prefix(5) {
            lines.append("\(mute.app) muted until \(Self.time(mute.until, now: now, timeZone: timeZone))")
        }
        if state.mutes.count > 5 { lines.append("\(state.mutes.count - 5) more muted") }
        tooltip = lines.joined(separator: "\n")

        var items: [Item] = []
        for (index, name) in state.focusNames.prefix(Self.maxFocusItems).enumerated() {
            items.append(Item(id: Self.firstFocusID + Int32(index), label: name, toggle: .radio,
                              isOn: state.activeFocus == name, command: .focusOn(name)))
        }
        items.append(Item(id: Self.offID, label: "Off", toggle: .radio, isOn: state.activeFocus == nil, command: .focusOff))
        items.append(Item(id: Self.separatorIDs[0], label: "", isSeparator: true))
        items.append(Item(id: Self.silentID, label: "Silent", toggle: .checkmark, isOn: state.silent, command: .toggleSilent))
        items.append(Item(id: Self.separatorIDs[1], label: "", isSeparator: true))
        let summary = state.heldSummary > 0 ? "Deliver Summary Now (\(state.heldSummary))" : "Deliver Summary Now"
        items.append(Item(id: Self.summaryID, label: summary, command: .deliverSummary))
        items.append(Item(id: Self.reloadID, label: "Reload Configuration", command: .reload))
        self.items = items
    }

    public func item(_ id: Int32) -> Item? { items.first { $0.id == id } }

    /// Whether `other` has the same items in the same order with the same labels (only
    /// toggle states differ): a client can update properties instead of the whole layout.
    public func hasSameLayout(as other: TrayModel) -> Bool {
        items.map { [$0.id: $0.label] } == other.items.map { [$0.id: $0.label] }
    }

    /// `HH:MM` today, `Www HH:MM` within a week, else `YYYY-MM-DD HH:MM`, local time.
    static func time(_ date: Instant, now: Instant, timeZone: TimeZoneRules) -> String {
        let wallClock = WallClock(timeZone: timeZone)
        let local = wallClock.localTime(of: date)
        let clock = String.zeroPadded(local.hour, width: 2) + ":" + String.zeroPadded(local.minute, width: 2)
        if local.day == wallClock.day(of: now) { return clock }
        if date > now, date.timeIntervalSince(now) < 6 * 86_400 {
            let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
            return "\(days[local.weekday]) \(clock)"
        }
        return String.zeroPadded(local.day.year, width: 4) + "-" + String.zeroPadded(local.day.month, width: 2) + "-"
            + String.zeroPadded(local.day.day, width: 2) + " " + clock
    }
}
