import FocusBridgeCore
import FocusBridgeStore

/// The bridge's notification IDs: never handed out twice, across restarts too, because a block
/// is reserved in the store before its IDs are used (`IDAllocator`).
final class IDSource {
    private var ids: IDAllocator
    /// An ID block reserved but not yet stored (the disk refused it).
    private var unsavedHighWater: UInt32?
    private let store: Store
    private let failures: FailureLog

    init(store: Store, failures: FailureLog) throws {
        ids = IDAllocator(persistedHighWater: try store.idHighWater())
        self.store = store
        self.failures = failures
    }

    func next() -> UInt32 {
        let allocation = ids.allocate()
        if let reserve = allocation.reserve { unsavedHighWater = reserve }
        if let mark = unsavedHighWater {
            // Until the mark is stored, a restart could hand these IDs out again: keep trying.
            do {
                try store.setIDHighWater(mark)
                unsavedHighWater = nil
                failures.succeeded("recording the ID high-water mark")
            } catch {
                failures.failed("recording the ID high-water mark", "cannot record the ID high-water mark in the state database: \(oneLine(error)); trying again with the next notification")
            }
        }
        return allocation.id
    }
}
