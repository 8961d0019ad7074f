/// Remembers what was delivered recently and is still open, so the same thing sent again (same
/// app, summary and body within the window) replaces it instead of popping up again.
///
/// One array of what is remembered, in delivery order, and two small indexes into it by number:
/// each key is kept once (it was twice, in two dictionaries of 80-byte keys: 1.45 MB at 4096),
/// and the oldest is forgotten at once instead of searched for among all.
public struct DuplicateTracker: Sendable {
    /// Fingerprints, not the texts: a window of thousands of megabyte bodies would otherwise
    /// stay in memory.
    struct Key: Hashable, Sendable {
        let app: String
        let summary: TextFingerprint
        let body: TextFingerprint

        init(app: String, summary: String, body: String) {
            self.app = KeptText.appKey(app).lowercased()
            self.summary = TextFingerprint(summary)
            self.body = TextFingerprint(body)
        }
    }

    struct Item: Sendable {
        let key: Key
        let id: UInt32
        let at: Instant
    }

    /// Delivery order; nil for one closed or replaced since. `items[0]` has sequence number `base`.
    private var items: [Item?] = []
    private var base: UInt32 = 0
    /// Leading entries of `items` that are nil.
    private var start = 0
    /// The sequence number of the newest for each key's hash value (a key is checked in full
    /// when found: two open keys sharing a 64-bit hash only make the older one forgotten early).
    private var byHash: [Int: UInt32] = [:]
    private var byID: [UInt32: UInt32] = [:]
    /// How many are remembered at most; the oldest are forgotten first.
    public let capacity: Int

    public init(capacity: Int = 4096) { self.capacity = max(1, capacity) }

    /// How many are remembered now.
    public var count: Int { byID.count }

    /// At most this many slots, nil ones included: past it the nil ones are squeezed out.
    private var slotLimit: Int { capacity + max(1, capacity / 4) }

    private func item(_ sequence: UInt32) -> Item? {
        let index = Int(sequence &- base)
        return index < items.count ? items[index] : nil
    }

    /// The open notification this one repeats, if it was delivered less than `window` ago.
    public func original(appKey: String, summary: String, body: String, now: Instant, window: Double) -> UInt32? {
        guard window > 0 else { return nil }
        let key = Key(app: appKey, summary: summary, body: body)
        guard let sequence = byHash[key.hashValue], let hit = item(sequence), hit.key == key else { return nil }
        return now.timeIntervalSince(hit.at) < window ? hit.id : nil
    }

    public mutating func delivered(_ id: UInt32, appKey: String, summary: String, body: String, at date: Instant) {
        closed(id)
        let key = Key(app: appKey, summary: summary, body: body)
        let hash = key.hashValue
        if let old = byHash[hash], let item = item(old), item.key == key { forget(old, item) }
        if items.count >= slotLimit { squeeze() }
        if items.count == items.capacity {
            // Grown by hand: doubling past the limit would keep twice what is needed.
            items.reserveCapacity(min(max(16, items.capacity * 2), slotLimit))
        }
        let sequence = base &+ UInt32(items.count)
        items.append(Item(key: key, id: id, at: date))
        byHash[hash] = sequence
        byID[id] = sequence
        while byID.count > capacity, start < items.count {
            if let oldest = items[start] { forget(base &+ UInt32(start), oldest) }
            dropLeadingGaps()
        }
    }

    public mutating func closed(_ id: UInt32) {
        guard let sequence = byID[id], let item = item(sequence) else { return }
        forget(sequence, item)
    }

    private mutating func forget(_ sequence: UInt32, _ item: Item) {
        let hash = item.key.hashValue
        if byHash[hash] == sequence { byHash[hash] = nil }
        if byID[item.id] == sequence { byID[item.id] = nil }
        items[Int(sequence &- base)] = nil
        dropLeadingGaps()
    }

    /// Moves `start` past nil entries; drops them from the array now and then (the numbers of
    /// the rest stay, so the indexes need no change).
    private mutating func dropLeadingGaps() {
        while start < items.count, items[start] == nil { start += 1 }
        if start == items.count {
            base &+= UInt32(start)
            start = 0
            // Everything was forgotten: a large array goes back.
            if items.capacity > 64 { items = [] } else { items.removeAll(keepingCapacity: true) }
            if byID.capacity > 64 {
                byHash = [:]
                byID = [:]
            }
        } else if start >= max(1, capacity / 4) {
            base &+= UInt32(start)
            items.removeFirst(start)
            start = 0
        }
    }

    /// Renumbers what is remembered without the nil entries between them (many closed out of
    /// order); the newest of a hash value is the one indexed, as when they were delivered.
    private mutating func squeeze() {
        var kept: [Item?] = []
        kept.reserveCapacity(slotLimit)
        byHash.removeAll(keepingCapacity: true)
        byID.removeAll(keepingCapacity: true)
        for case let item? in items {
            let sequence = base &+ UInt32(kept.count)
            kept.append(item)
            byHash[item.key.hashValue] = sequence
            byID[item.id] = sequence
        }
        items = kept
        start = 0
    }
}
