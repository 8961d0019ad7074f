/// The one notification that stands for many held ones: the scheduled summary, or what a Focus
/// held. Most relevant first (`x-focus-relevance`, then level, then newest), five lines at most.
public struct Digest: Equatable, Sendable {
    public static let showAllKey = "show-all"
    public static let dismissKey = "dismiss"
    public static let maxLines = 5

    public var title: String
    public var body: String
    /// The held notifications it stands for, most relevant first.
    public var items: [UInt32]

    public var actions: [String] { [Self.showAllKey, "Show All", Self.dismissKey, "Dismiss"] }

    public static func summary(of held: [HeldNotification]) -> Digest? {
        make(title: "Notification Summary", held)
    }

    public static func afterFocus(_ name: String, _ held: [HeldNotification], away: Bool = false) -> Digest? {
        make(title: away ? "While you were away" : "While \(name) was on", held)
    }

    /// Most relevant first: relevance, then level, then newest (then the higher ID).
    public static func ordered(_ held: [HeldNotification]) -> [HeldNotification] {
        let rank: [InterruptionLevel: Int] = [.passive: 0, .active: 1, .timeSensitive: 2, .critical: 3]
        return held.sorted { a, b in
            if a.relevance != b.relevance { return a.relevance > b.relevance }
            if a.level != b.level { return rank[a.level]! > rank[b.level]! }
            if a.received != b.received { return a.received > b.received }
            return a.id > b.id
        }
    }

    private static func make(title: String, _ held: [HeldNotification]) -> Digest? {
        guard !held.isEmpty else { return nil }
        let ordered = ordered(held)
        var lines = ordered.prefix(maxLines).map { "\($0.app) — \($0.summary)" }
        let rest = ordered.dropFirst(maxLines)
        if !rest.isEmpty {
            let apps = Set(rest.map { $0.app.lowercased() }).count
            lines.append("and \(rest.count) more from \(apps) app\(apps == 1 ? "" : "s")")
        }
        return Digest(title: title, body: lines.joined(separator: "\n"), items: ordered.map(\.id))
    }
}
