/// Remembers what was delivered recently and is still open, so the same thing sent again (same
/// app, summary and body within the window) replaces it instead of popping up again.
public struct DuplicateTracker: Sendable {
    /// Fingerprints, not the texts: a window of thousands of megabyte bodies would otherwise
    /// stay in memory.
    private struct Key: Hashable, Sendable {
        let app: String
        let summary: TextFingerprint
        let body: TextFingerprint

        init(app: String, summary: String, body: String) {
            self.app = KeptText.appKey(app).lowercased()
            self.summary = TextFingerprint(summary)
            self.body = TextFingerprint(body)
        }
    }

    private var recent: [Key: (id: UInt32, at: Instant)] = [:]
    private var keys: [UInt32: Key] = [:]
    /// How many are remembered at most; the oldest are forgotten first.
    public let capacity: Int

    public init(capacity: Int = 4096) { self.capacity = capacity }

    /// The open notification this one repeats, if it was delivered less than `window` ago.
    public func original(appKey: String, summary: String, body: String, now: Instant, window: Double) -> UInt32? {
        guard window > 0, let hit = recent[Key(app: appKey, summary: summary, body: body)] else { return nil }
        return now.timeIntervalSince(hit.at) < window ? hit.id : nil
    }

    public mutating func delivered(_ id: UInt32, appKey: String, summary: String, body: String, at date: Instant) {
        closed(id)
        let key = Key(app: appKey, summary: summary, body: body)
        if let old = recent[key] { keys[old.id] = nil }
        recent[key] = (id, date)
        keys[id] = key
        if recent.count > capacity, let oldest = recent.min(by: { $0.value.at < $1.value.at }) {
            recent[oldest.key] = nil
            keys[oldest.value.id] = nil
        }
    }

    public mutating func closed(_ id: UInt32) {
        guard let key = keys.removeValue(forKey: id) else { return }
        if recent[key]?.id == id { recent[key] = nil }
    }
}
