/// The unread count per app that docks show as a badge (`com.canonical.Unity.LauncherEntry`).
///
/// A notification is unread from the moment it is delivered or held until the person or the app
/// closes it, the person acts on it or dismisses it, or the person focuses the app. One that
/// merely expired on screen stays unread. Counts are kept per desktop ID (what the launcher
/// entry's `application://ID.desktop` names); which IDs count is the server's to say.
///
/// Bounded: at most `maxTracked` notifications (the oldest are forgotten past it), and at most
/// `maxSelfPublishers` apps that publish their own badge.
public struct BadgeCounts: Sendable {
    public static let maxTracked = 10_000
    public static let maxSelfPublishers = 256

    public struct Update: Equatable, Sendable {
        public let desktopID: String
        public let count: Int

        public init(desktopID: String, count: Int) {
            self.desktopID = desktopID
            self.count = count
        }
        /// `application://ID.desktop`, the launcher entry's app URI.
        public var appURI: String { BadgeCounts.appURI(desktopID) }
    }

    struct Item: Sendable {
        let desktopID: String
        let appKey: String
    }

    private var items: [UInt32: Item] = [:]
    /// IDs in the order they were counted, for forgetting the oldest (with removed ones among them).
    private var order: [UInt32] = []
    private var orderStart = 0
    private var counts: [String: Int] = [:]
    /// What each app's badge last said, for apps whose published count is not 0.
    private var published: [String: Int] = [:]
    private var dirty: Set<String> = []
    /// Apps that publish their own launcher entry, oldest first.
    private var selfPublishers: [String] = []

    public init() {}

    /// `org.gnome.Maps.desktop` → `org.gnome.Maps`; nil when nothing is left. Only for names
    /// known to carry the suffix (a file name, a URI): `org.telegram.desktop` is a desktop ID.
    public static func withoutSuffix(_ name: String) -> String? {
        var id = name
        if id.lowercased().hasSuffix(".desktop") { id.removeLast(".desktop".count) }
        return id.isEmpty ? nil : id
    }

    /// Whether an app key or desktop ID names the same app as a desktop ID: without regard to
    /// case, with or without a `.desktop` suffix.
    public static func sameApp(_ name: String, _ desktopID: String) -> Bool {
        let a = name.lowercased(), b = desktopID.lowercased()
        return a == b || a == b + ".desktop" || b == a + ".desktop"
    }

    public static func appURI(_ desktopID: String) -> String { "application://\(desktopID).desktop" }

    /// The desktop ID in `application://ID.desktop`, or nil for any other URI.
    public static func desktopID(fromURI uri: String) -> String? {
        let prefix = "application://"
        guard uri.hasPrefix(prefix) else { return nil }
        return withoutSuffix(String(uri.dropFirst(prefix.count)))
    }

    public var trackedCount: Int { items.count }

    /// The unread count of the app with this desktop ID.
    public func count(_ desktopID: String) -> Int { counts[desktopID] ?? 0 }

    /// Whether the app publishes its own badge (the bridge stays out of it).
    public func publishesItself(_ desktopID: String) -> Bool { selfPublishers.contains(desktopID) }

    /// A notification was delivered or held. A repeat (a replacement, a held one going out)
    /// keeps the app it was first counted for.
    public mutating func add(_ id: UInt32, desktopID: String, appKey: String) {
        guard items[id] == nil, !publishesItself(desktopID) else { return }
        items[id] = Item(desktopID: desktopID, appKey: appKey)
        counts[desktopID, default: 0] += 1
        dirty.insert(desktopID)
        order.append(id)
        while items.count > Self.maxTracked, orderStart < order.count {
            let oldest = order[orderStart]
            orderStart += 1
            remove(oldest)
        }
        if orderStart > 4096 || order.count > Self.maxTracked * 2 {
            order = order[orderStart...].filter { items[$0] != nil }
            orderStart = 0
        }
    }

    /// The notification was read: closed, acted upon or dismissed.
    public mutating func remove(_ id: UInt32) {
        guard let item = items.removeValue(forKey: id) else { return }
        let left = (counts[item.desktopID] ?? 1) - 1
        counts[item.desktopID] = left > 0 ? left : nil
        dirty.insert(item.desktopID)
    }

    /// The person focused the app: everything of it counts as seen. `app` is an app key or a
    /// desktop ID, matched without regard to case and to a `.desktop` suffix.
    public mutating func clear(app: String) {
        guard !app.isEmpty else { return }
        removeAll { Self.sameApp(app, $0.desktopID) || Self.sameApp(app, $0.appKey) }
    }

    /// Forgets every notification for which `predicate(desktopID, appKey)` holds (badges
    /// turned off for an app, or altogether).
    public mutating func removeAll(where predicate: (_ desktopID: String, _ appKey: String) -> Bool) {
        removeAll { predicate($0.desktopID, $0.appKey) }
    }

    private mutating func removeAll(_ predicate: (Item) -> Bool) {
        for (id, item) in items where predicate(item) { remove(id) }
    }

    /// The app publishes its own launcher entry: the bridge forgets its counts and publishes
    /// nothing more for it (the app's own badge would be overwritten). Returns whether it is new.
    @discardableResult
    public mutating func stepBack(_ desktopID: String) -> Bool {
        guard !publishesItself(desktopID) else { return false }
        removeAll { $0.desktopID == desktopID }
        dirty.remove(desktopID)
        published[desktopID] = nil
        selfPublishers.append(desktopID)
        if selfPublishers.count > Self.maxSelfPublishers { selfPublishers.removeFirst() }
        return true
    }

    /// The badges that changed since the last call, each once, sorted by desktop ID.
    public mutating func takeUpdates() -> [Update] {
        var updates: [Update] = []
        for desktopID in dirty.sorted() where !publishesItself(desktopID) {
            let count = counts[desktopID] ?? 0
            guard count != (published[desktopID] ?? 0) else { continue }
            published[desktopID] = count > 0 ? count : nil
            updates.append(Update(desktopID: desktopID, count: count))
        }
        dirty.removeAll()
        return updates
    }

    /// Whether `takeUpdates` may have something to say.
    public var hasChanges: Bool { !dirty.isEmpty }
}
