import FocusBridgeCore
import FocusBridgeStore
import FocusBridgeSystem
import FocusBridgeTime
import Foundation
import XCTest

/// History is bounded by size as well as by age (`history-max-mb`, `HistorySize`): on a real
/// store, the oldest rows go first, held notifications' never, and the files on disk stay within
/// the bound while rows are written.
final class HistorySizeTests: XCTestCase {
    private let start = Instant(timeIntervalSince1970: 1_800_000_000)
    private let bound = HistorySize(maxBytes: 2 << 20)
    private var directory = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "history-size-\(UUID().uuidString)"
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What the state files take on disk: the database, its WAL and anything else there.
    private func filesOnDisk() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .reduce(0) { $0 + (FileStatus.size(directory + "/" + $1) ?? 0) }
    }

    /// A notification as big as history keeps one: a 100 KB body and 40 hints of 256 bytes, cut
    /// to 4 KiB and 24 hints (2 KiB) as they are kept.
    private func bigEntry(_ id: UInt32, decision: DeliveryOutcome = .collapsed) -> HistoryEntry {
        let hints = (0..<40).map { "string:x-flood-\($0):" + String(repeating: "h", count: 256) }
        return HistoryEntry(id: id, app: "Flooder", summary: "n\(id) " + String(repeating: "s", count: 2000),
                            body: String(repeating: "b", count: 100_000), level: .active, decision: decision,
                            received: start + Double(id), kept: KeptRequest(appName: "Flooder", appSource: "app-name", hints: hints))
    }

    private func hold(_ id: UInt32) -> Store.Hold {
        let item = HeldNotification(id: id, reason: .focus("Work"), app: "Mail", summary: "held \(id)", body: "",
                                    level: .active, relevance: 0, received: start + Double(id),
                                    holders: [Caller(connection: ":1.9")], processID: nil)
        return Store.Hold(item: item, payloadType: "(s)", payload: [UInt8](repeating: 0x61, count: 16_384) + [0])
    }

    /// Commits `count` big rows from `first` on, 16 per commit as a flood's group commits come,
    /// running passes after each commit as the bridge does (`HistoryTrimmer`); the most the files
    /// took on disk after any commit.
    private func flood(_ store: Store, from first: UInt32, count: Int) throws -> Int {
        var most = 0
        var id = first
        while id < first + UInt32(count) {
            let batch = (id..<min(id + 16, first + UInt32(count))).map { bigEntry($0) }
            try store.commit(history: batch, holds: [])
            id += UInt32(batch.count)
            if store.isHistoryTrimDue {
                while try !store.trimHistory().isWithin {}
            }
            most = max(most, try filesOnDisk())
        }
        return most
    }

    func testTheOldestGoHeldStayAndTheFilesStayWithinTheBound() throws {
        let store = try Store(directory: directory)
        store.historySize = bound
        let held: [UInt32] = [1, 2, 3]
        try store.commit(history: held.map { bigEntry($0, decision: .heldFocus) }, holds: held.map(hold))

        // 1,000 rows of about 7 KiB: 7 MB unbounded, against a bound of 2 MiB.
        let most = try flood(store, from: 4, count: 1000)

        XCTAssertLessThanOrEqual(most, bound.maxBytes, "the files took \(most) bytes on disk, over the bound")
        let newest = try store.history(limit: 1000)
        XCTAssertEqual(newest.first?.id, 1003, "the newest is kept")
        XCTAssertGreaterThan(newest.count, 100, "history is trimmed to its bound, not emptied")
        XCTAssertLessThan(newest.count, 500, "the oldest went")
        XCTAssertNil(try store.entry(id: 4)?.id, "the oldest that is not held went first")
        XCTAssertEqual(Set(try store.heldNotifications().map(\.item.id)), Set(held), "held notifications stay")
        for id in held {
            XCTAssertEqual(try store.entry(id: id)?.summary.hasPrefix("n\(id) "), true, "the history of a held one stays")
        }
        // Kept text stays as it was cut: nothing is cut again or rewritten.
        XCTAssertEqual(newest.first?.body.utf8.count, KeptText.maxBodyBytes)
        XCTAssertEqual(newest.first?.summary.utf8.count, KeptText.maxSummaryBytes)
        XCTAssertEqual(try store.entry(id: 1003)?.kept?.hints.count, 7, "2 KiB of hints, as they were kept")
    }

    func testLooksComeEveryFewRowsAndEachPassIsOneBatch() throws {
        let store = try Store(directory: directory)
        XCTAssertFalse(store.isHistoryTrimDue, "no bound, no look")
        store.historySize = bound
        XCTAssertTrue(store.isHistoryTrimDue, "a new bound is looked at without waiting for rows")
        XCTAssertEqual(try store.trimHistory(), Store.HistoryTrim(forgotten: 0, isWithin: true))
        try store.commit(history: (1...UInt32(bound.checkEveryRows - 1)).map { bigEntry($0) }, holds: [])
        XCTAssertFalse(store.isHistoryTrimDue)
        try store.record([bigEntry(UInt32(bound.checkEveryRows))])
        XCTAssertTrue(store.isHistoryTrimDue)

        // Over the bound: a pass after a burst forgets as many more as were written, at most
        // four batches, and says whether more is to come; the next, with nothing written, one batch.
        store.historySize = nil
        try store.commit(history: (1000..<1500).map { bigEntry($0) }, holds: [])
        store.historySize = bound
        let pass = try store.trimHistory()
        XCTAssertEqual(pass, Store.HistoryTrim(forgotten: 4 * bound.batchRows, isWithin: false))
        XCTAssertTrue(store.isHistoryTrimDue, "the next pass is due at once")
        XCTAssertEqual(try store.trimHistory(), Store.HistoryTrim(forgotten: bound.batchRows, isWithin: false))
        try store.commit(history: (1500..<1510).map { bigEntry($0) }, holds: [])
        XCTAssertEqual(try store.trimHistory().forgotten, bound.batchRows + 10, "what was written since, and a batch")
    }

    /// A file grown without a bound (an older release's, or a bound lowered) is trimmed, then
    /// compacted once: the free pages only a rewrite gives back.
    func testAFileFarOverTheBoundIsCompactedOnceWithin() throws {
        let store = try Store(directory: directory)
        _ = try flood(store, from: 1, count: 1000)
        XCTAssertGreaterThan(try filesOnDisk(), 3 * bound.maxBytes, "grown without a bound")

        store.historySize = bound
        var forgotten = 0
        while true {
            let pass = try store.trimHistory()
            forgotten += pass.forgotten
            if pass.isWithin { break }
        }
        XCTAssertGreaterThan(forgotten, 500)
        XCTAssertGreaterThan(try filesOnDisk(), bound.maxBytes, "forgetting alone leaves the file's free pages")
        XCTAssertTrue(try store.compactIfFarOver())
        XCTAssertLessThanOrEqual(try filesOnDisk(), bound.maxBytes)
        XCTAssertFalse(try store.compactIfFarOver(), "once")
        XCTAssertEqual(try store.history(limit: 1).first?.id, 1000, "the newest is kept")

        // The bound holds from here on, rows still coming.
        XCTAssertLessThanOrEqual(try flood(store, from: 1001, count: 300), bound.maxBytes)
    }

    func testTheDefaultBoundKeepsAHeavyWeekWithRoomForTheWAL() {
        let size = HistorySize(megabytes: GeneralSettings().historyMaxMB)
        XCTAssertEqual(size.maxBytes, 64 << 20)
        XCTAssertEqual(size.trimAbove, 48 << 20)
        XCTAssertEqual(size.walLimit, 8 << 20)
        XCTAssertEqual(size.checkEveryRows, 128)
        XCTAssertEqual(size.batchRows, 64)
        // What is written between two looks and one batch stay a small part of the bound.
        XCTAssertLessThanOrEqual(size.checkEveryRows * HistorySize.maxRowBytes, size.maxBytes / 16)
        XCTAssertTrue(size.needsCompacting(fileBytes: 128 << 20, freeBytes: 80 << 20))
        XCTAssertFalse(size.needsCompacting(fileBytes: 50 << 20, freeBytes: 20 << 20), "within: never rewritten")
        XCTAssertFalse(size.needsCompacting(fileBytes: 128 << 20, freeBytes: 8 << 20), "held fill it: nothing to give back")
    }
}
