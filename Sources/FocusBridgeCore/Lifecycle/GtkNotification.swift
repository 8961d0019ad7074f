/// A GTK `AddNotification(app_id, id, notification)` with the keys of its dictionary that a
/// decision reads, and the same in the terms of the one request (`request`): the GTK door
/// decodes into this, and nothing after the door knows the wire it came by.
public struct GtkNotification: Equatable, Sendable {
    /// GNotification's priorities, as GLib names them on the wire.
    public enum Priority: String, Sendable {
        case low, normal, high, urgent

        /// The fdo urgency it means (GLib's own freedesktop backend maps them so, and so does the
        /// level): low 0, normal and high 1, urgent 2.
        public var urgency: Int {
            switch self {
            case .low: 0
            case .normal, .high: 1
            case .urgent: 2
            }
        }
    }

    public var appID: String
    public var id: String
    public var title: String
    public var body: String
    /// `priority`; nil when absent or not one of the four.
    public var priority: Priority?
    /// `urgent`, the key GLib sent before `priority` existed.
    public var urgent: Bool?
    public var category: String?
    /// The buttons' labels in the app's order; a button's key in the request is its index.
    public var buttonLabels: [String]

    public init(appID: String, id: String, title: String = "", body: String = "", priority: Priority? = nil,
                urgent: Bool? = nil, category: String? = nil, buttonLabels: [String] = []) {
        self.appID = appID
        self.id = id
        self.title = title
        self.body = body
        self.priority = priority
        self.urgent = urgent
        self.category = category
        self.buttonLabels = buttonLabels
    }

    /// The urgency the shell shows it with: `priority`, else `urgent`, else normal.
    public var urgency: Int { priority?.urgency ?? (urgent == true ? 2 : 1) }

    /// The request a decision reads: the app ID as the app's name and desktop entry, the title
    /// and body, each button an action keyed by its index, the urgency and category as hints.
    /// The default action is not a button: it stays the click, untouched.
    public func request(replacing replacesID: UInt32 = 0) -> NotificationRequest {
        var actions: [String] = []
        actions.reserveCapacity(buttonLabels.count * 2)
        for (index, label) in buttonLabels.enumerated() { actions += [String(index), label] }
        var hints: [String: HintValue] = ["desktop-entry": .string(appID), "urgency": .integer(Int64(urgency))]
        if let category, !category.isEmpty { hints["category"] = .string(category) }
        var request = NotificationRequest(appName: appID, replacesID: replacesID, summary: title, body: body,
                                          actions: actions, hints: hints)
        request.door = .gtk
        return request
    }

    /// The button an action key of `request` stands for.
    public static func buttonIndex(forKey key: String) -> Int? {
        guard let index = Int(key), index >= 0, String(index) == key else { return nil }
        return index
    }

    /// The priority to show it with after the decision: the app's own when it means the
    /// decided urgency, else the one that does (`low`, `normal`, `urgent`).
    public func priority(forUrgency urgency: UInt8) -> Priority {
        if let priority, priority.urgency == Int(urgency) { return priority }
        switch urgency {
        case 0: return .low
        case 2: return .urgent
        default: return .normal
        }
    }

    /// Whether the shell can take `appID` at all: it becomes the object path the shell activates
    /// the app at (`/` + the ID, dots as slashes, dashes as underscores), so it must make a
    /// valid one. The shell answers `InvalidApp` for any other.
    public static func isValidAppID(_ appID: String) -> Bool {
        guard !appID.isEmpty, appID.utf8.count <= 255 else { return false }
        var previousDot = true
        for byte in appID.utf8 {
            switch byte {
            case UInt8(ascii: "."):
                if previousDot { return false }
                previousDot = true
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                previousDot = false
            default:
                return false
            }
        }
        return !previousDot
    }
}
