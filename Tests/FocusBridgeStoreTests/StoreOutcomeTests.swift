import FocusBridgeCore
import FocusBridgeStore
import FocusBridgeTime
import Foundation
import XCTest

/// The v8 migration (when the person first acted on a notification) and what the store reads
/// for outcomes and the report: a file from before opens with its rows' outcomes read from their
/// close, an action is noted on the newest row of its ID once, an older row of an ID is read as
/// replaced, and history is read for the report a slice at a time, newest first.
final class StoreOutcomeTests: XCTestCase {
    private var directory: String!
    private let start = Instant(timeIntervalSince1970: 1_800_000_000)

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "focus-bridge-outcome-\(UUID().uuidString)/state"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
    }

    private func entry(_ id: UInt32, _ summary: String, at seconds: Double, app: String = "Mail",
                       decision: DeliveryOutcome = .delivered, steps: [FateStep] = []) -> HistoryEntry {
        HistoryEntry(id: id, app: app, summary: summary, body: "", level: .active, decision: decision,
                     received: start.addingTimeInterval(seconds), steps: steps)
    }

    func testAFileFromBeforeOutcomesOpensWithItsOutcomesFromTheirClose() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let file = try SQLiteDatabase(path: directory + "/state.sqlite3")
            try file.execute("""
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1'), ('v2-held'), ('v3-no-app-index'), ('v4-history-rowid'),
                    ('v5-held-holders'), ('v6-app-choices'), ('v7-history-fate');
                CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                CREATE TABLE history (row INTEGER PRIMARY KEY, id INTEGER NOT NULL, app TEXT NOT NULL,
                    summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, decision TEXT NOT NULL,
                    received DOUBLE NOT NULL, closed DOUBLE, close_reason INTEGER, request TEXT, fate TEXT);
                CREATE INDEX history_id ON history(id);
                CREATE TABLE held (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, focus TEXT, app TEXT NOT NULL,
                    summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, relevance DOUBLE NOT NULL,
                    received DOUBLE NOT NULL, sender TEXT NOT NULL, pid INTEGER, digest INTEGER,
                    payload_type TEXT NOT NULL, payload BLOB NOT NULL, holders TEXT);
                CREATE TABLE app_choice (app_key TEXT NOT NULL, app TEXT NOT NULL, key TEXT NOT NULL,
                    value TEXT NOT NULL, made REAL NOT NULL, PRIMARY KEY (app_key, key));
                CREATE TABLE app_mute (app_key TEXT PRIMARY KEY, app TEXT NOT NULL, until REAL NOT NULL);
                CREATE TABLE app_asked (app_key TEXT PRIMARY KEY, app TEXT NOT NULL, answer TEXT NOT NULL, at REAL NOT NULL);
                INSERT INTO history (id, app, summary, body, level, decision, received, closed, close_reason) VALUES
                    (7, 'Mail', 'expired', '', 'active', 'delivered', 1800000000, 1800000005, 1),
                    (8, 'Mail', 'open', '', 'active', 'delivered', 1800000001, NULL, NULL),
                    (9, 'Mail', 'held', '', 'active', 'held-focus', 1800000002, NULL, NULL);
                """)
        }
        let store = try Store(directory: directory)
        XCTAssertEqual(try store.history(limit: 10).map(\.outcome), [nil, .open, .expired])
        try store.markActed([(8, start.addingTimeInterval(9))])
        XCTAssertEqual(try store.entry(id: 8)?.outcome, .acted, "an old row takes an action like a new one")
    }

    func testAnActionIsNotedOnceOnTheNewestRowOfItsID() throws {
        let store = try Store(directory: directory)
        try store.record([entry(1, "Upload 10%", at: 0), entry(2, "Other", at: 1), entry(1, "Upload 90%", at: 2)])
        try store.markActed([(1, start.addingTimeInterval(5)), (1, start.addingTimeInterval(6)), (404, start)])
        let rows = try store.history(limit: 10)
        XCTAssertEqual(rows.map(\.summary), ["Upload 90%", "Other", "Upload 10%"])
        XCTAssertEqual(rows.map(\.acted), [start.addingTimeInterval(5), nil, nil], "the first action's time, on the newest row")
        XCTAssertEqual(rows.map(\.replaced), [false, false, true])
        XCTAssertEqual(rows.map(\.outcome), [.acted, .open, .replaced])
        try store.markClosed([(1, 2, start.addingTimeInterval(7))])
        XCTAssertEqual(try store.entry(id: 1)?.outcome, .acted, "closed after it was acted on: still acted")
        XCTAssertEqual(try store.history(limit: 10, app: "mail").map(\.replaced), [false, false, true], "filtered by app too")
    }

    func testAStoreInMemoryMovesItsActionsIntoTheFile() throws {
        let memory = try Store(inMemory: "the disk is full", directory: directory, idHighWater: 0)
        try memory.record([entry(1, "one", at: 0)])
        try memory.markActed([(1, start.addingTimeInterval(3))])
        let file = try Store(directory: directory)
        try memory.move(to: file)
        XCTAssertEqual(try memory.entry(id: 1)?.acted, start.addingTimeInterval(3))
    }

    func testTheReportReadsHistoryASliceAtATimeNewestFirst() throws {
        let store = try Store(directory: directory)
        let replayed = FateStep(.replayed, at: start.addingTimeInterval(50), detail: "Show All")
        var entries: [HistoryEntry] = []
        for id: UInt32 in 1...5 {
            let held = id == 3
            entries.append(entry(id, "n\(id)", at: Double(id), decision: held ? .heldFocus : .delivered, steps: held ? [replayed] : []))
        }
        try store.record(entries)
        try store.markActed([(4, start.addingTimeInterval(10))])
        try store.markClosed([(2, 1, start.addingTimeInterval(10))])

        let first = try store.activity(below: nil, limit: 2)
        XCTAssertEqual(first.rows.map(\.id), [5, 4])
        XCTAssertEqual(first.rows.map(\.acted), [false, true])
        let second = try store.activity(below: first.next, limit: 2)
        XCTAssertEqual(second.rows.map(\.id), [3, 2])
        XCTAssertEqual(second.rows.map(\.replayed), [true, false])
        XCTAssertEqual(second.rows.map(\.closeReason), [nil, 1])
        XCTAssertEqual(second.rows.first?.decision, .heldFocus)
        let last = try store.activity(below: second.next, limit: 2)
        XCTAssertEqual(last.rows.map(\.id), [1])
        XCTAssertNil(last.next, "a short slice is the last")
        XCTAssertEqual(try store.activity(below: nil, limit: 10).next, nil)
        XCTAssertEqual(try Store(inMemory: "test", directory: directory + "-2", idHighWater: 0).activity(below: nil, limit: 10).rows, [])
    }
}
