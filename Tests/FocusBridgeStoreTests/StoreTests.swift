import FocusBridgeCore
import FocusBridgeJSON
@testable import FocusBridgeStore
import FocusBridgeTime
import Foundation
import XCTest

final class StoreTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "focus-bridge-store-\(UUID().uuidString)/state"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
    }

    func testTheStateIsPrivateToTheUser() throws {
        let store = try Store(directory: directory)
        try store.setIDHighWater(5)
        let folder = try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int
        let file = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
        XCTAssertEqual(folder, 0o700)
        XCTAssertEqual(file, 0o600)
    }

    /// A store kept in memory while the folder cannot be used, then moved into the file: the
    /// file's history and settings stay, what was kept in memory is added after them, and IDs
    /// go on past both marks.
    func testAStoreInMemoryMovesIntoTheFileKeepingBoth() throws {
        let start = Instant(timeIntervalSince1970: 1_800_000_000)
        do {
            let before = try Store(directory: directory)
            try before.record([HistoryEntry(id: 7, app: "Old", summary: "from the file", body: "", level: .active,
                                            decision: .delivered, received: start)])
            try before.setIDHighWater(2048)
            try before.setSetting(.silent, "off")
        }
        let memory = try Store(inMemory: "cannot create the state folder", directory: directory, idHighWater: 3_000_000_000)
        XCTAssertEqual(memory.inMemoryBecause, "cannot create the state folder")
        XCTAssertEqual(try memory.idHighWater(), 3_000_000_000)
        try memory.record([HistoryEntry(id: 3_000_000_001, app: "New", summary: "in memory", body: "", level: .active,
                                        decision: .delivered, received: start + 5)])
        try memory.setSetting(.silent, "on")

        try memory.move(to: try Store(directory: directory))
        XCTAssertNil(memory.inMemoryBecause)
        XCTAssertEqual(memory.path, directory + "/state.sqlite3")
        XCTAssertEqual(try memory.history(limit: 10).map(\.summary), ["in memory", "from the file"])
        try memory.record([HistoryEntry(id: 3_000_000_002, app: "New", summary: "on disk", body: "", level: .active,
                                        decision: .delivered, received: start + 6)])
        XCTAssertEqual(try memory.idHighWater(), 3_000_000_000, "the higher mark of both")
        XCTAssertEqual(try memory.setting(.silent), "on", "what was set meanwhile wins")
        XCTAssertEqual(try memory.history(limit: 10).map(\.summary), ["on disk", "in memory", "from the file"])
    }

    func testHistoryNewestFirstFilteredByAppAnyCase() throws {
        let store = try Store(directory: directory)
        let start = Instant(timeIntervalSince1970: 1_800_000_000)
        try store.record([
            HistoryEntry(id: 1, app: "Slack", summary: "one", body: "", level: .active, decision: .delivered, received: start),
            HistoryEntry(id: 2, app: "mail", summary: "two", body: "", level: .active, decision: .delivered, received: start + 1),
            HistoryEntry(id: 3, app: "slack", summary: "three", body: "", level: .active, decision: .delivered, received: start + 2),
        ])
        XCTAssertEqual(try store.history(limit: 10).map(\.id), [3, 2, 1])
        XCTAssertEqual(try store.history(limit: 2).map(\.id), [3, 2])
        XCTAssertEqual(try store.history(limit: 10, app: "SLACK").map(\.id), [3, 1])
        try store.markClosed([(id: 2, reason: 3, at: start + 5)])
        let closed = try store.history(limit: 10, app: "mail")[0]
        XCTAssertEqual(closed.closeReason, 3)
        XCTAssertEqual(closed.closed, start + 5)
        XCTAssertEqual(try store.countsByDecision()[.delivered], 3)
    }

    /// A state file from before the history table lost AUTOINCREMENT and its app index keeps
    /// every row, in order, its close, and new rows come after it.
    func testAnOlderStateFileIsUpgradedWithItsHistory() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/state.sqlite3"
        do {
            let old = try SQLiteDatabase(path: path)
            do {
                try old.execute("""
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1'), ('v2-held');
                    CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    CREATE TABLE history (row INTEGER PRIMARY KEY AUTOINCREMENT, id INTEGER NOT NULL, app TEXT NOT NULL,
                        summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, decision TEXT NOT NULL,
                        received DOUBLE NOT NULL, closed DOUBLE, close_reason INTEGER);
                    CREATE INDEX history_id ON history(id);
                    CREATE INDEX history_app ON history(app);
                    CREATE TABLE held (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, focus TEXT, app TEXT NOT NULL,
                        summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, relevance DOUBLE NOT NULL,
                        received DOUBLE NOT NULL, sender TEXT NOT NULL, pid INTEGER, digest INTEGER,
                        payload_type TEXT NOT NULL, payload BLOB NOT NULL);
                    INSERT INTO history (id, app, summary, body, level, decision, received) VALUES
                        (7, 'Mail', 'old one', '', 'active', 'delivered', 1800000000),
                        (8, 'Chat', 'old two', '', 'passive', 'held-summary', 1800000001);
                    """)
            }
        }
        do {
            // The store keeps the file locked while it is open.
            let store = try Store(directory: directory)
            try store.record([HistoryEntry(id: 9, app: "Mail", summary: "new", body: "", level: .active, decision: .delivered,
                                           received: Instant(timeIntervalSince1970: 1_800_000_002))])
            try store.markClosed([(id: 7, reason: 2, at: Instant(timeIntervalSince1970: 1_800_000_003))])
            let history = try store.history(limit: 10)
            XCTAssertEqual(history.map(\.summary), ["new", "old two", "old one"])
            XCTAssertEqual(history.last?.closeReason, 2)
        }
        let schema = try SQLiteDatabase(path: path).strings("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL")
            .joined(separator: "\n")
        XCTAssertFalse(schema.contains("AUTOINCREMENT"), schema)
        XCTAssertFalse(schema.contains("history_app"), schema)
        XCTAssertTrue(schema.contains("history_id"), schema)
    }

    /// A new file gets the history table without AUTOINCREMENT (no `sqlite_sequence` to write
    /// on every Notify) and with the one index a query uses.
    func testANewStateFileHasTheLeanHistoryTable() throws {
        let path: String
        do {
            let store = try Store(directory: directory)
            try store.record([HistoryEntry(id: 1, app: "Mail", summary: "s", body: "", level: .active, decision: .delivered,
                                           received: Instant(timeIntervalSince1970: 1_800_000_000))])
            path = store.path
        }
        let file = try SQLiteDatabase(path: path)
        let names = try file.strings("SELECT name FROM sqlite_master WHERE tbl_name = 'history'")
        let schema = try file.strings("SELECT sql FROM sqlite_master WHERE name = 'history'").first ?? ""
        XCTAssertEqual(Set(names), ["history", "history_id"])
        XCTAssertFalse(schema.contains("AUTOINCREMENT"), schema)
    }

    /// The schema each release wrote (its migrations applied, nothing else), and the rows it
    /// held: every one opens, keeps its rows in order and takes new ones. Migrations are never
    /// edited once released; this is what would notice.
    func testAFileFromEveryEarlierReleaseOpens() throws {
        let history = """
            CREATE TABLE history (row INTEGER PRIMARY KEY AUTOINCREMENT, id INTEGER NOT NULL, app TEXT NOT NULL,
                summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, decision TEXT NOT NULL,
                received DOUBLE NOT NULL, closed DOUBLE, close_reason INTEGER);
            CREATE INDEX history_id ON history(id);
            """
        let leanHistory = """
            CREATE TABLE history (row INTEGER PRIMARY KEY, id INTEGER NOT NULL, app TEXT NOT NULL,
                summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, decision TEXT NOT NULL,
                received DOUBLE NOT NULL, closed DOUBLE, close_reason INTEGER);
            CREATE INDEX history_id ON history(id);
            """
        let held = """
            CREATE TABLE held (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, focus TEXT, app TEXT NOT NULL,
                summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, relevance DOUBLE NOT NULL,
                received DOUBLE NOT NULL, sender TEXT NOT NULL, pid INTEGER, digest INTEGER,
                payload_type TEXT NOT NULL, payload BLOB NOT NULL);
            """
        let releases: [(name: String, migrations: [String], schema: String)] = [
            ("the first", ["v1"], history + "CREATE INDEX history_app ON history(app);"),
            ("with holding", ["v1", "v2-held"], history + "CREATE INDEX history_app ON history(app);" + held),
            ("without the app index", ["v1", "v2-held", "v3-no-app-index"], history + held),
            ("with the lean history", ["v1", "v2-held", "v3-no-app-index", "v4-history-rowid"], leanHistory + held),
        ]
        for release in releases {
            let folder = directory + "/" + release.name.replacingOccurrences(of: " ", with: "-")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let path = folder + "/state.sqlite3"
            do {
                let db = try SQLiteDatabase(path: path)
                try db.execute("CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);")
                for migration in release.migrations {
                    try db.execute("INSERT INTO grdb_migrations VALUES (?)", [migration])
                }
                try db.execute("CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);")
                try db.execute(release.schema)
                try db.execute("""
                    INSERT INTO setting VALUES ('id-high-water', '1024');
                    INSERT INTO history (id, app, summary, body, level, decision, received) VALUES
                        (7, 'Mail', 'old one', '', 'active', 'delivered', 1800000000),
                        (8, 'Chat', 'old two', '', 'passive', 'held-summary', 1800000001);
                    """)
                if release.migrations.contains("v2-held") {
                    try db.execute("""
                        INSERT INTO held (id, kind, app, summary, body, level, relevance, received, sender, payload_type, payload)
                        VALUES (8, 'summary', 'Chat', 'old two', '', 'passive', 0, 1800000001, ':1.5', '(susssasa{sv}i)', x'00');
                        """)
                }
            }
            let store = try Store(directory: folder)
            XCTAssertEqual(try store.idHighWater(), 1024, release.name)
            try store.record([HistoryEntry(id: 9, app: "Mail", summary: "new", body: "", level: .active, decision: .delivered,
                                           received: Instant(timeIntervalSince1970: 1_800_000_002))])
            XCTAssertEqual(try store.history(limit: 10).map(\.summary), ["new", "old two", "old one"], release.name)
            if release.migrations.contains("v2-held") {
                let items = try store.heldNotifications()
                XCTAssertEqual(items.map(\.item.id), [8], release.name)
                XCTAssertEqual(items.first?.item.holders, [Caller(connection: ":1.5")], "an older row keeps its sender only")
            }
        }
    }

    /// Every table and index of a new file of the last release on GRDB, the release of
    /// 2026-11-22 (read with `sqlite3` from a file it made): migrations v1 to v7 keep their SQL to
    /// the character, so a new file is that file with the migrations after them.
    static let schemaOfAGRDBFile = #"""
        table grdb_migrations CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)
        index sqlite_autoindex_grdb_migrations_1 -
        table setting CREATE TABLE "setting" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL)
        index sqlite_autoindex_setting_1 -
        table sqlite_sequence CREATE TABLE sqlite_sequence(name,seq)
        table held CREATE TABLE "held" ("id" INTEGER PRIMARY KEY, "kind" TEXT NOT NULL, "focus" TEXT, "app" TEXT NOT NULL, "summary" TEXT NOT NULL, "body" TEXT NOT NULL, "level" TEXT NOT NULL, "relevance" DOUBLE NOT NULL, "received" DOUBLE NOT NULL, "sender" TEXT NOT NULL, "pid" INTEGER, "digest" INTEGER, "payload_type" TEXT NOT NULL, "payload" BLOB NOT NULL, "holders" TEXT)
        table history CREATE TABLE "history" (row INTEGER PRIMARY KEY, id INTEGER NOT NULL, app TEXT NOT NULL,
            summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, decision TEXT NOT NULL,
            received DOUBLE NOT NULL, closed DOUBLE, close_reason INTEGER, "request" TEXT, "fate" TEXT)
        index history_id CREATE INDEX history_id ON history(id)
        table app_choice CREATE TABLE app_choice (app_key TEXT NOT NULL, app TEXT NOT NULL, key TEXT NOT NULL,
                                 value TEXT NOT NULL, made REAL NOT NULL, PRIMARY KEY (app_key, key))
        index sqlite_autoindex_app_choice_1 -
        table app_mute CREATE TABLE app_mute (app_key TEXT PRIMARY KEY, app TEXT NOT NULL, until REAL NOT NULL)
        index sqlite_autoindex_app_mute_1 -
        table app_asked CREATE TABLE app_asked (app_key TEXT PRIMARY KEY, app TEXT NOT NULL, answer TEXT NOT NULL, at REAL NOT NULL)
        index sqlite_autoindex_app_asked_1 -
        """#

    static let grdbMigrations = ["v1", "v2-held", "v3-no-app-index", "v4-history-rowid", "v5-held-holders",
                                 "v6-app-choices", "v7-history-fate"]

    /// A new file: the GRDB release's, with the migrations after it.
    static let schemaOfANewFile = schemaOfAGRDBFile
        .replacingOccurrences(of: #""request" TEXT, "fate" TEXT)"#, with: #""request" TEXT, "fate" TEXT, "via" TEXT, "acted" DOUBLE)"#)
    static let allMigrations = grdbMigrations + ["v8-history-via", "v9-history-acted"]

    private static func schema(_ database: SQLiteDatabase) throws -> String {
        try database.statement("SELECT type, name, sql FROM sqlite_master ORDER BY rowid").rows { row in
            "\(row.string(0) ?? "?") \(row.string(1) ?? "?") \(row.string(2) ?? "-")"
        }.joined(separator: "\n")
    }

    func testANewFileHasTheSchemaItAlwaysHad() throws {
        let path = try Store(directory: directory).path
        XCTAssertEqual(try Self.schema(SQLiteDatabase(path: path)), Self.schemaOfANewFile)
        XCTAssertEqual(try SQLiteDatabase(path: path).strings("SELECT identifier FROM grdb_migrations ORDER BY rowid"),
                       Self.allMigrations)
        XCTAssertEqual(try SQLiteDatabase(path: path).strings("PRAGMA journal_mode"), ["wal"])
    }

    /// A file of the last release on GRDB (all seven migrations recorded by GRDB's migrator)
    /// runs none of them again, keeps its rows, and runs only the migrations after them.
    func testAFileOfTheLastReleaseOnGRDBRunsNoMigration() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/state.sqlite3"
        do {
            let file = try SQLiteDatabase(path: path)
            // The statements of the schema above (some span lines); autoindexes come with their tables.
            let statements = Self.schemaOfAGRDBFile.components(separatedBy: "\n")
                .reduce(into: [String]()) { statements, line in
                    if line.hasPrefix("table ") || line.hasPrefix("index ") {
                        statements.append(line.split(separator: " ", maxSplits: 2).last.map(String.init) ?? "")
                    } else {
                        statements[statements.count - 1] += "\n" + line
                    }
                }
                .filter { $0 != "-" && !$0.contains("sqlite_sequence") }
            for statement in statements { try file.execute(statement) }
            for migration in Self.grdbMigrations { try file.execute("INSERT INTO grdb_migrations VALUES (?)", [migration]) }
            try file.execute("""
                INSERT INTO history (id, app, summary, body, level, decision, received, fate) VALUES
                    (7, 'Mail', 'kept', '', 'active', 'delivered', 1800000000, NULL);
                INSERT INTO app_mute VALUES ('mail', 'Mail', 1900000000);
                """)
        }
        let store = try Store(directory: directory)
        XCTAssertEqual(try store.history(limit: 10).map(\.summary), ["kept"])
        XCTAssertEqual(try store.mutes().mutedUntil("Mail", at: Instant(timeIntervalSince1970: 1_800_000_000)),
                       Instant(timeIntervalSince1970: 1_900_000_000))
        XCTAssertEqual(try Self.schema(store.database).replacingOccurrences(of: "table sqlite_sequence CREATE TABLE sqlite_sequence(name,seq)\n", with: ""),
                       Self.schemaOfANewFile.replacingOccurrences(of: "table sqlite_sequence CREATE TABLE sqlite_sequence(name,seq)\n", with: ""))
        XCTAssertEqual(try store.database.strings("SELECT identifier FROM grdb_migrations ORDER BY rowid"), Self.allMigrations,
                       "no migration ran again; those after ran once")
    }

    func testSettingsSurviveReopening() throws {
        try Store(directory: directory).setIDHighWater(2048)
        XCTAssertEqual(try Store(directory: directory).idHighWater(), 2048)
    }

    /// The keys are the ones state files hold: a state file written by any release reads the same.
    func testSettingKeysAreTheStoredOnes() throws {
        XCTAssertEqual(Store.SettingKey.allCases.map(\.rawValue),
                       ["id-high-water", "silent", "manual-focus", "summary-checked", "share", "review-checked", "reviews"])
        try Store(directory: directory).setSetting(.silent, "on")
        XCTAssertEqual(try Store(directory: directory).setting(.silent), "on")
    }

    func testLongTextIsCutInHistory() throws {
        let entry = HistoryEntry(id: 1, app: "a", summary: "s", body: String(repeating: "x", count: 1 << 20),
                                 level: .active, decision: .delivered, received: Instant())
        XCTAssertEqual(entry.body.utf8.count, KeptText.maxBodyBytes)
    }
}

final class TimestampTests: XCTestCase {
    func testRoundTripWithMilliseconds() {
        for seconds in [0.0, 1_800_000_000.123, 1_800_000_000.999, 951_782_400.5 /* 2000-02-29 */] {
            let date = Instant(timeIntervalSince1970: seconds)
            let text = Timestamp.string(date)
            XCTAssertEqual(text.count, 24, text)
            XCTAssertEqual(Timestamp.parse(text)!.timeIntervalSince1970, (seconds * 1000).rounded(.down) / 1000, accuracy: 0.0005)
        }
        XCTAssertEqual(Timestamp.string(Instant(timeIntervalSince1970: 1_800_000_000.123)), "2027-01-15T08:00:00.123Z")
        XCTAssertEqual(Timestamp.parse("2026-11-21T21:00:00Z"), Instant(timeIntervalSince1970: 1_795_294_800))
        XCTAssertNil(Timestamp.parse("yesterday"))
        XCTAssertNil(Timestamp.parse("2026-11-21 21:00:00.000Z"))
    }
}
