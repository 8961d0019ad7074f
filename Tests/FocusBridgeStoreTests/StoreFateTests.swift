import FocusBridgeCore
import FocusBridgeStore
import FocusBridgeTime
import Foundation
import XCTest

/// The v6 migration (what explain ID and show ID need, and each notification's fate) and the
/// store's side of the fate: a file from before opens with its rows, steps are added to the
/// newest row of an ID, and what is kept is bounded.
final class StoreFateTests: XCTestCase {
    private var directory: String!
    private let start = Instant(timeIntervalSince1970: 1_800_000_000)

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "focus-bridge-fate-\(UUID().uuidString)/state"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
    }

    /// A file as the release before v6 wrote it (every migration up to v5-held-holders), with two rows.
    private func fileBeforeFate() throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/state.sqlite3"
        do {
            try SQLiteDatabase(path: path).execute("""
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1'), ('v2-held'), ('v3-no-app-index'), ('v4-history-rowid'),
                    ('v5-held-holders');
                CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                CREATE TABLE history (row INTEGER PRIMARY KEY, id INTEGER NOT NULL, app TEXT NOT NULL,
                    summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, decision TEXT NOT NULL,
                    received DOUBLE NOT NULL, closed DOUBLE, close_reason INTEGER);
                CREATE INDEX history_id ON history(id);
                CREATE TABLE held (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, focus TEXT, app TEXT NOT NULL,
                    summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, relevance DOUBLE NOT NULL,
                    received DOUBLE NOT NULL, sender TEXT NOT NULL, pid INTEGER, digest INTEGER,
                    payload_type TEXT NOT NULL, payload BLOB NOT NULL, holders TEXT);
                INSERT INTO setting VALUES ('id-high-water', '1024');
                INSERT INTO history (id, app, summary, body, level, decision, received, closed, close_reason) VALUES
                    (7, 'Mail', 'old one', 'b', 'active', 'delivered', 1800000000, 1800000005, 2),
                    (8, 'Chat', 'old two', '', 'passive', 'held-focus', 1800000001, NULL, NULL);
                """)
        }
        return path
    }

    func testAFileFromBeforeTheFateOpensWithItsRows() throws {
        _ = try fileBeforeFate()
        let store = try Store(directory: directory)
        let old = try store.history(limit: 10)
        XCTAssertEqual(old.map(\.id), [8, 7])
        XCTAssertEqual(old.map { $0.steps }, [[], []])
        XCTAssertEqual(old[1].fate(), "delivered → dismissed")
        // explain ID of an old row: what there is, nothing kept
        let entry = try XCTUnwrap(try store.entry(id: 7))
        XCTAssertEqual(entry.summary, "old one")
        XCTAssertNil(entry.kept)
        // an old row takes steps like a new one
        try store.noteFates([(8, FateStep(.inDigest, at: start, number: 12))])
        XCTAssertEqual(try store.entry(id: 8)?.steps, [FateStep(.inDigest, at: start, number: 12)])
        XCTAssertEqual(try store.entry(id: 8)?.fate(time: { _ in "18:02" }), "held-focus → in digest 12 at 18:02")
        XCTAssertNil(try store.entry(id: 99))
    }

    func testANewRowKeepsItsRequestAndStepsGoToTheNewestRowOfItsID() throws {
        let store = try Store(directory: directory)
        let kept = KeptRequest(appName: "Slack", appSource: "app_name", hints: ["string:category:im.received", "byte:urgency:1"],
                               focus: "work", trace: ["delivery: held-focus (work is on and nothing lets it through)"])
        try store.record([
            HistoryEntry(id: 3, app: "Slack", summary: "first", body: "", level: .active, decision: .delivered, received: start),
            HistoryEntry(id: 3, app: "Slack", summary: "replaced", body: "", level: .active, decision: .heldFocus,
                         received: start + 1, kept: kept),
        ])
        try store.noteFates([(3, FateStep(.replayed, at: start + 2, detail: "focusctl show")),
                             (3, FateStep(.daemonQuiet, at: start + 2, detail: "dunst paused"))])
        try store.markClosed([(id: 3, reason: 1, at: start + 3)])
        let rows = try store.history(limit: 10)
        XCTAssertEqual(rows.map(\.steps.count), [2, 0], "the newest row of the ID takes the steps")
        XCTAssertEqual(rows[0].fate(), "held-focus → replayed by focusctl show (dunst paused) → expired")
        XCTAssertNil(rows[0].kept, "history lists rows without what explain needs")
        let entry = try XCTUnwrap(try store.entry(id: 3))
        XCTAssertEqual(entry.kept, kept)
        XCTAssertEqual(entry.kept?.hint("category"), "im.received")
        // what explain decides "now" from: the kept request, read back
        let request = try XCTUnwrap(entry.kept).notification(summary: entry.summary, body: entry.body)
        XCTAssertEqual(request.hints["category"], .string("im.received"))
        XCTAssertEqual(request.hints["urgency"], .integer(1))
        XCTAssertEqual(request.summary, "replaced")
    }

    func testStepsOfOneRowStayBounded() throws {
        let store = try Store(directory: directory)
        try store.record([HistoryEntry(id: 5, app: "CI", summary: "s", body: "", level: .active, decision: .delivered,
                                       received: start)])
        for n in 0..<50 { try store.noteFates([(5, FateStep(.shownAgain, at: start + Double(n), number: UInt32(100 + n)))]) }
        let steps = try XCTUnwrap(try store.entry(id: 5)).steps
        XCTAssertEqual(steps.count, Fate.maxSteps)
        XCTAssertEqual(steps.first?.number, 100, "the first steps stay")
        XCTAssertEqual(steps.last?.number, 149, "the newest replaces the last")
    }

    func testADamagedFateOrRequestIsReadLeniently() throws {
        let store = try Store(directory: directory)
        try store.record([HistoryEntry(id: 6, app: "CI", summary: "s", body: "", level: .active, decision: .delivered,
                                       received: start)])
        // a step of a kind this version does not know, with tabs and a line break in its detail
        try store.noteFates([(6, FateStep(kind: "from-a-newer-version", at: start, detail: "a\tb\nc"))])
        let entry = try XCTUnwrap(try store.entry(id: 6))
        XCTAssertEqual(entry.steps.map(\.kind), ["from-a-newer-version"])
        XCTAssertEqual(entry.steps.first?.detail, "a b c")
        XCTAssertEqual(entry.fate(), "delivered → from-a-newer-version (a b c)")
        XCTAssertEqual(Fate.decode("garbage\nin-digest\tNaN\t1\t\nin-digest\t5\tx\t"), [FateStep(kind: "in-digest", at: Instant(timeIntervalSince1970: 5))])
        XCTAssertNil(KeptRequest.read("{not json"))
        XCTAssertNil(KeptRequest.read(nil))
    }

    func testAWebPagesBrowserIsKeptBesideItsSite() throws {
        _ = try fileBeforeFate()
        let store = try Store(directory: directory)
        XCTAssertNil(try store.entry(id: 7)?.via, "a row from before has none")
        let kept = KeptRequest(appName: "Chromium", appSource: "site of the web page")
        try store.record([
            HistoryEntry(id: 20, app: "app.slack.com", summary: "page", body: "app.slack.com\n\nHi", level: .active,
                         decision: .delivered, received: start, kept: kept, via: "chromium"),
            HistoryEntry(id: 21, app: "firefox-esr", summary: "other", body: "", level: .active, decision: .delivered,
                         received: start + 1, kept: KeptRequest(appName: "Firefox", appSource: "desktop-entry hint")),
        ])
        XCTAssertEqual(try store.history(limit: 2).map(\.via), [nil, "chromium"])
        XCTAssertEqual(try store.entry(id: 20)?.via, "chromium")
        XCTAssertEqual(try store.entry(id: 20)?.kept?.app(key: "app.slack.com", via: "chromium").via, "chromium")
        let vias = try store.appVias(since: start - 1)
        XCTAssertEqual(vias.map(\.app), ["app.slack.com"])
        XCTAssertEqual(vias.map(\.via), ["chromium"])
        // The browser's name is no name of the site's.
        XCTAssertEqual(try store.appNames(since: start - 1).map(\.name), ["Firefox"])
    }
}
