/// Hands out the bridge's notification IDs: never 0, never reused, also across restarts.
///
/// Writing the high-water mark on every `Notify` would cost a disk write per call, so IDs are
/// reserved in blocks: the store records the end of the current block, and after a restart
/// numbering resumes past it (a gap, never a repeat).
public struct IDAllocator: Sendable {
    public static let blockSize: UInt32 = 1024

    public private(set) var next: UInt32
    public private(set) var reservedThrough: UInt32

    /// Resumes after `persistedHighWater`, the last reservation the store recorded (0 when new).
    public init(persistedHighWater: UInt32) {
        next = persistedHighWater == UInt32.max ? 1 : persistedHighWater + 1
        reservedThrough = persistedHighWater
    }

    /// The next ID, and a new high-water mark to persist first when a new block was reserved.
    public mutating func allocate() -> (id: UInt32, reserve: UInt32?) {
        if next == 0 { next = 1 } // wrapped after 4 billion IDs: skip 0
        let id = next
        next &+= 1
        guard id > reservedThrough || reservedThrough == 0 else { return (id, nil) }
        let (sum, overflow) = id.addingReportingOverflow(Self.blockSize - 1)
        reservedThrough = overflow ? UInt32.max : sum
        return (id, reservedThrough)
    }
}
