import FocusBridgeTime

/// Remembers what was delivered recently and is still open, so the same thing sent again (same
/// app, summary and body within the window) replaces it instead of popping up again.
///
/// One array of what is remembered, in delivery order, and two small indexes into it by number:
/// each key is kept once, and the oldest is forgotten at once instead of searched for among all.
public struct DuplicateTracker: Sendable {
    /// A fingerprint, not the texts: a window of thousands of megabyte bodies would otherwise
    /// stay in memory. 24 bytes and no allocation: the lengths of summary and body and a 128-bit
    /// hash of the app key (case ignored), summary and body, then their lengths (two SipHash
    /// runs of the process's random seed, told apart by their first byte): no text is kept on
    /// the heap per entry. Public so a decision can hand on the key it made.
    public struct Key: Hashable, Sendable {
        let lengths: UInt64
        let low: UInt64
        let high: UInt64

        init(app: String, summary: String, body: String) {
            var app = KeptText.appKey(app).lowercasedCheaply()
            var summary = summary
            var body = body
            let appBytes = app.utf8.count
            let summaryBytes = summary.utf8.count
            let bodyBytes = body.utf8.count
            var first = Hasher()
            var second = Hasher()
            first.combine(0 as UInt8)
            second.combine(1 as UInt8)
            // The texts one after the other, each hasher taking them in one call (a call costs
            // more than the bytes of a short text), then their lengths, which tell where each ends.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: appBytes + summaryBytes + bodyBytes) { buffer in
                var end = Self.copy(&app, into: buffer, at: 0)
                end = Self.copy(&summary, into: buffer, at: end)
                end = Self.copy(&body, into: buffer, at: end)
                let texts = UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[..<end]))
                first.combine(bytes: texts)
                second.combine(bytes: texts)
            }
            first.combine(appBytes)
            first.combine(summaryBytes)
            first.combine(bodyBytes)
            second.combine(appBytes)
            second.combine(summaryBytes)
            second.combine(bodyBytes)
            lengths = UInt64(truncatingIfNeeded: summaryBytes) << 32 | UInt64(truncatingIfNeeded: bodyBytes) & 0xffff_ffff
            low = UInt64(bitPattern: Int64(first.finalize()))
            high = UInt64(bitPattern: Int64(second.finalize()))
        }

        /// Copies `text` into `buffer` from `start`; returns where it ends.
        private static func copy(_ text: inout String, into buffer: UnsafeMutableBufferPointer<UInt8>, at start: Int) -> Int {
            text.withUTF8 { start + UnsafeMutableBufferPointer(rebasing: buffer[start...]).initialize(fromContentsOf: $0) }
        }

        /// What the index by hash value is keyed by.
        var index: Int { Int(truncatingIfNeeded: low) }
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
        return original(Key(app: appKey, summary: summary, body: body), now: now, window: window)
    }

    /// The same for the notification's key.
    func original(_ key: Key, now: Instant, window: Double) -> UInt32? {
        guard window > 0, let sequence = byHash[key.index], let hit = item(sequence), hit.key == key else { return nil }
        return now.timeIntervalSince(hit.at) < window ? hit.id : nil
    }

    /// `key`: the notification's, when its decision made it (its texts are then not hashed again).
    public mutating func delivered(_ id: UInt32, appKey: String, summary: String, body: String, at date: Instant,
                                   key: Key? = nil) {
        closed(id)
        let key = key ?? Key(app: appKey, summary: summary, body: body)
        let hash = key.index
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
        let hash = item.key.index
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
            byHash[item.key.index] = sequence
            byID[item.id] = sequence
        }
        items = kept
        start = 0
    }
}
