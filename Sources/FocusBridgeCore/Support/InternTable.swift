/// Values that many entries share (the connections holding IDs, the app keys), each kept once and
/// counted; the entries refer to them by a 32-bit handle. Thousands of live notifications from
/// a few connections then cost no allocation each: a copy of a `Caller` per entry would be a
/// small array on the heap per notification, which outlives the burst that made it and keeps
/// glibc from giving the pages around it back (docs/BENCHMARKS.md, "What the heap held after the burst").
public struct InternTable<Value: Hashable & Sendable>: Sendable {
    private var values: [Value?] = []
    private var counts: [UInt32] = []
    private var index: [Value: UInt32] = [:]
    private var free: [UInt32] = []
    /// The handle last retained: the same connection and app usually come many times in a row,
    /// and comparing is cheaper than hashing.
    private var last: UInt32?

    public init() {}

    /// How many distinct values are kept.
    public var count: Int { index.count }

    public subscript(handle: UInt32) -> Value { values[Int(handle)]! }

    /// The handle of `value`, counted once more (kept until released as often).
    public mutating func retain(_ value: Value) -> UInt32 {
        if let last, values[Int(last)] == value {
            counts[Int(last)] += 1
            return last
        }
        if let handle = index[value] {
            counts[Int(handle)] += 1
            last = handle
            return handle
        }
        let handle: UInt32
        if let reused = free.popLast() {
            handle = reused
            values[Int(handle)] = value
            counts[Int(handle)] = 1
        } else {
            handle = UInt32(values.count)
            values.append(value)
            counts.append(1)
        }
        index[value] = handle
        last = handle
        return handle
    }

    /// Counts `handle` once more.
    public mutating func retain(handle: UInt32) { counts[Int(handle)] += 1 }

    /// Counts `handle` once less; the value is forgotten when nothing refers to it.
    public mutating func release(_ handle: UInt32) {
        let slot = Int(handle)
        counts[slot] -= 1
        guard counts[slot] == 0, let value = values[slot] else { return }
        index[value] = nil
        if last == handle { last = nil }
        if index.isEmpty {
            // Nothing is kept: the storage goes too (a burst from many connections is over).
            values = []
            counts = []
            free = []
            index = [:]
        } else {
            values[slot] = nil
            free.append(handle)
        }
    }
}
