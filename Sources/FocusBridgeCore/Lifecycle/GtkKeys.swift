/// Which bridge ID each GTK notification has: an app names its notifications itself (`id`,
/// unique within the app), so a second `AddNotification` with the same app and ID replaces the
/// first and `RemoveNotification` finds it. Keyed by the app key (a sandbox's own ID for a
/// sandboxed sender, so no sandbox reaches another app's) and the app's ID; forgotten when the
/// bridge ID ends, and bounded besides.
public struct GtkKeys: Sendable {
    /// What a GTK app calls one of its notifications: its app ID and its own ID within it.
    public struct Name: Equatable, Sendable {
        public let appID: String
        public let id: String

        public init(appID: String, id: String) {
            self.appID = appID
            self.id = id
        }
    }

    public static let capacity = 20_000
    public init() {}

    private var ids: [String: UInt32] = [:]
    private var keys: [UInt32: (key: String, appID: String, id: String)] = [:]

    public var count: Int { ids.count }

    private static func key(_ appKey: String, _ id: String) -> String { appKey + "\u{0}" + id }

    public func id(appKey: String, id: String) -> UInt32? { ids[Self.key(appKey, id)] }

    /// The app ID and notification ID the app gave bridge ID `bridgeID`.
    public func names(of bridgeID: UInt32) -> (appID: String, id: String)? {
        keys[bridgeID].map { ($0.appID, $0.id) }
    }

    /// The same as one value (what the ledger's effects carry).
    public func name(of bridgeID: UInt32) -> Name? {
        keys[bridgeID].map { Name(appID: $0.appID, id: $0.id) }
    }

    public mutating func bind(_ bridgeID: UInt32, appKey: String, appID: String, id: String) {
        let key = Self.key(appKey, id)
        if let old = ids[key], old != bridgeID { keys[old] = nil }
        if keys[bridgeID] == nil, ids.count >= Self.capacity {
            // Beyond the bound the oldest IDs are forgotten: an app can no longer replace or
            // remove those, and nothing else changes.
            for old in keys.keys.sorted().prefix(Self.capacity / 10) { forget(old) }
        }
        ids[key] = bridgeID
        keys[bridgeID] = (key, appID, id)
    }

    public mutating func forget(_ bridgeID: UInt32) {
        guard let entry = keys.removeValue(forKey: bridgeID) else { return }
        if ids[entry.key] == bridgeID { ids[entry.key] = nil }
    }
}
