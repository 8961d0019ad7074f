import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
@testable import FocusBridgeServer
import FocusBridgeStore
import FocusBridgeTime
import Foundation
import XCTest

/// `GroupCommit` on a real state database in a temporary folder, driven by the real GLib main
/// loop (its write is an idle callback): what one pass records is written in one transaction,
/// and callers hear their IDs only after it.
final class GroupCommitTests: XCTestCase {
    private let logs = LogRecorder()

    private func makeCommit(_ store: Store) -> GroupCommit {
        GroupCommit(store: store, failures: FailureLog(logger: logs.logger), info: { [logs] in logs.logger.info("\($0)") },
                    retryMilliseconds: 50)
    }

    private func hold(_ id: UInt32) -> Store.Hold {
        let item = HeldNotification(id: id, reason: .focus("Work"), app: "Mail", summary: "held", body: "", level: .active,
                                    relevance: 0.5, received: Instant(timeIntervalSince1970: 1_800_000_000),
                                    holders: [Caller(connection: ":1.9")], processID: nil)
        return Store.Hold(item: item, payloadType: "(s)", payload: [0x73, 0])
    }

    func testCallersAreAnsweredOnlyOnceTheWholeBatchIsWritten() throws {
        let store = try temporaryStore()
        let commit = makeCommit(store)
        var answered: [UInt32] = []
        var rowsWhenAnswered: [Int] = []
        var heldWhenAnswered: [Int] = []
        var commits: [(ends: Int, answered: Int)] = []
        commit.committed = { ends, count in commits.append((ends.count, count)) }

        commit.hold(hold(4))
        for id: UInt32 in 1...3 {
            commit.answer(history: historyEntry(id)) {
                answered.append(id)
                rowsWhenAnswered.append((try? store.history(limit: 100).count) ?? -1)
                heldWhenAnswered.append((try? store.heldNotifications().count) ?? -1)
            }
        }
        commit.record(historyEntry(5, summary: "2 notifications from Mail"))  // a digest: nobody waits for it
        commit.record(historyEntry(4, decision: .heldFocus))

        XCTAssertTrue(commit.isPending)
        XCTAssertEqual(answered, [], "nobody is answered before the write")
        XCTAssertEqual(try store.history(limit: 100).count, 0, "nothing is written before the main loop is idle")

        runMainLoop(until: { !commit.isPending })
        XCTAssertEqual(answered, [1, 2, 3], "answered in order")
        XCTAssertEqual(rowsWhenAnswered, [5, 5, 5], "every row of the batch was in the database before the first answer")
        XCTAssertEqual(heldWhenAnswered, [1, 1, 1])
        XCTAssertEqual(commits.map(\.answered), [3], "one write for the whole pass")
        XCTAssertEqual(Set(try store.history(limit: 100).map(\.id)), [1, 2, 3, 4, 5])
    }

    /// One transaction: when the database refuses one row, none of the batch is written — and the
    /// callers are answered anyway (forwarding goes on); the batch waits in memory, held ones
    /// held, with what comes after it, and is written by the retry once the database takes it.
    func testARefusedWriteKeepsTheBatchInMemoryUntilTheRetryWorks() throws {
        // A database that refuses one row: a trigger, added while the store is closed (the
        // bridge keeps the file locked).
        let folder = temporaryStoreFolder()
        let path = try Store(directory: folder).path
        do {
            let raw = try SQLiteDatabase(path: path)
            do {
                try raw.execute("""
                    CREATE TRIGGER refuse BEFORE INSERT ON history
                    WHEN NEW.summary = 'refused' AND NOT EXISTS (SELECT 1 FROM held WHERE id = 99)
                    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                    """)
            }
        }
        let store = try Store(directory: folder)
        let commit = makeCommit(store)
        var changes = 0
        var answered: [UInt32] = []
        commit.stateChanged = { changes += 1 }
        commit.hold(hold(3))
        commit.answer(history: historyEntry(1)) { answered.append(1) }
        commit.answer(history: historyEntry(2, summary: "refused")) { answered.append(2) }
        commit.record(historyEntry(3, decision: .heldFocus))

        runMainLoop(until: { !commit.isPending })
        XCTAssertEqual(try store.history(limit: 100).map(\.id), [], "the row written before the refused one was rolled back")
        XCTAssertEqual(try store.heldNotifications().count, 0)
        XCTAssertEqual(answered, [1, 2], "the callers still get their IDs")
        XCTAssertEqual(commit.unwritten, 3, "the batch waits in memory")
        XCTAssertEqual(commit.lost, 0)
        XCTAssertTrue(commit.problem?.contains("3 notifications wait in memory") ?? false, "\(commit.problem ?? "nil")")
        XCTAssertGreaterThan(changes, 0, "status is told")
        XCTAssertTrue(logs.lines.contains { $0.level == .error && $0.message.contains("cannot write 3 notifications") },
                      "\(logs.lines)")

        // While it fails, what comes next waits too, answered at once, until the retry.
        commit.answer(history: historyEntry(4)) { answered.append(4) }
        runMainLoop(until: { !commit.isPending })
        XCTAssertEqual(answered, [1, 2, 4])
        XCTAssertEqual(commit.unwritten, 4)

        // The database takes the row again (the trigger lets it through once held row 99 exists).
        try store.commit(history: [], holds: [hold(99)])
        // The retry is a timer (50 ms here): the loop blocks for it.
        for _ in 0..<100 where commit.unwritten != 0 { _ = MainLoop.iterate(blocking: true) }
        XCTAssertEqual(try store.history(limit: 100).map(\.id), [4, 3, 2, 1], "what waited is written first, then the new")
        XCTAssertEqual(Set(try store.heldNotifications().map(\.item.id)), [3, 99], "the held one is stored")
        XCTAssertEqual(commit.unwritten, 0)
        XCTAssertNil(commit.problem)
        XCTAssertTrue(logs.lines.contains { $0.level == .info && $0.message.contains("works again") }, "\(logs.lines)")
        XCTAssertTrue(logs.lines.contains { $0.message.contains("4 notifications kept in memory") }, "\(logs.lines)")
    }

    /// A steady flood would keep the main loop from ever being idle: at `maxBatch` answers the
    /// batch is written at once.
    func testAFullBatchIsWrittenWithoutWaitingForTheLoop() throws {
        let store = try temporaryStore()
        let commit = makeCommit(store)
        var answered = 0
        for id in 1...UInt32(GroupCommit.maxBatch) {
            XCTAssertEqual(answered, 0)
            commit.answer(history: historyEntry(id)) { answered += 1 }
        }
        XCTAssertEqual(answered, GroupCommit.maxBatch)
        XCTAssertEqual(try store.history(limit: 1000).count, GroupCommit.maxBatch)

        commit.answer(history: historyEntry(1000)) { answered += 1 }
        XCTAssertEqual(answered, GroupCommit.maxBatch, "the next one waits for the next write")
        runMainLoop(until: { answered == GroupCommit.maxBatch + 1 })
        XCTAssertEqual(try store.history(limit: 1000).count, GroupCommit.maxBatch + 1)
    }

    /// An ID that ended as it was handed out: its holders hear of it after the answers.
    func testEndsAreToldAfterTheAnswersOfTheirBatch() throws {
        let store = try temporaryStore()
        let commit = makeCommit(store)
        var events: [String] = []
        commit.committed = { ends, count in
            if count > 0 || !ends.isEmpty { events.append("ended \(ends.map(\.id)) after \(count) answer(s)") }
        }
        commit.endAfterAnswers(7, reason: .dismissed, holders: [Caller(connection: ":1.7")])
        commit.answer(history: historyEntry(7)) { events.append("answered 7") }
        XCTAssertEqual(events, [])
        runMainLoop(until: { !commit.isPending })
        XCTAssertEqual(events, ["answered 7", "ended [7] after 1 answer(s)"])
    }

    func testHoldsWithdrawnBeforeTheWriteAreNotWritten() throws {
        let store = try temporaryStore()
        let commit = makeCommit(store)
        commit.hold(hold(5))
        commit.hold(hold(6))
        commit.withdrawHolds([5])
        commit.record(historyEntry(6, decision: .heldFocus))
        runMainLoop(until: { !commit.isPending })
        XCTAssertEqual(try store.heldNotifications().map(\.item.id), [6])
    }

    func testClosingsAreNotedInHistory() throws {
        let store = try temporaryStore()
        let commit = makeCommit(store)
        commit.record(historyEntry(1))
        runMainLoop(until: { !commit.isPending })
        let closed = Instant(timeIntervalSince1970: 1_800_000_100)
        commit.noteClosed(1, reason: .expired, at: closed)
        XCTAssertTrue(commit.isPending)
        runMainLoop(until: { !commit.isPending })
        let row = try XCTUnwrap(store.history(limit: 10).first)
        XCTAssertEqual(row.closeReason, CloseReason.expired.rawValue)
        XCTAssertEqual(row.closed, closed)
    }
}
