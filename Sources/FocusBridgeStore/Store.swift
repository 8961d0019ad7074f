import Foundation
import FocusBridgeCore
import GRDB

/// FocusBridge's durable state in SQLite: the history of notifications and small settings such
/// as the ID high-water mark. The file is private to the user (0600, folder 0700) and in WAL
/// mode, so a crash loses nothing that was committed.
public final class Store {
    public let path: String
    private let database: DatabaseQueue

    /// Opens (creating when needed) `state.sqlite3` in `directory`.
    public init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
        path = (directory as NSString).appendingPathComponent("state.sqlite3")
        let previousMask = umask(0o077)
        defer { umask(previousMask) }
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Only the daemon opens the file (focusctl asks over D-Bus), so it keeps the lock:
            // no file locking on every transaction, and a second daemon cannot open the store.
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
        }
        database = try DatabaseQueue(path: path, configuration: configuration)
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
        try Self.migrator.migrate(database)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "setting") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
            // A new file gets today's history table at once (v3 and v4 bring older files to it).
            try db.create(table: "history") { t in
                t.primaryKey("row", .integer)
                t.column("id", .integer).notNull()
                t.column("app", .text).notNull()
                t.column("summary", .text).notNull()
                t.column("body", .text).notNull()
                t.column("level", .text).notNull()
                t.column("decision", .text).notNull()
                t.column("received", .double).notNull()
                t.column("closed", .double)
                t.column("close_reason", .integer)
            }
            try db.create(index: "history_id", on: "history", columns: ["id"])
        }
        migrator.registerMigration("v2-held") { db in
            try db.create(table: "held") { t in
                t.primaryKey("id", .integer)
                t.column("kind", .text).notNull()          // focus | summary
                t.column("focus", .text)                   // the Focus that held it
                t.column("app", .text).notNull()
                t.column("summary", .text).notNull()
                t.column("body", .text).notNull()
                t.column("level", .text).notNull()
                t.column("relevance", .double).notNull()
                t.column("received", .double).notNull()
                t.column("sender", .text).notNull()
                t.column("pid", .integer)
                t.column("digest", .integer)               // the digest it was delivered in
                t.column("payload_type", .text).notNull()  // the original Notify arguments,
                t.column("payload", .blob).notNull()       // serialised GVariant, byte for byte
            }
        }
        migrator.registerMigration("v3-no-app-index") { db in
            // `history --app` compares without regard to case, which this index cannot serve; it
            // only cost a third B-tree write on every Notify.
            try db.execute(sql: "DROP INDEX IF EXISTS history_app")
        }
        migrator.registerMigration("v4-history-rowid") { db in
            // AUTOINCREMENT kept `sqlite_sequence` up to date: one more B-tree written on every
            // Notify (a quarter of the insert's time). A plain INTEGER PRIMARY KEY is the rowid:
            // new rows still come after every existing one, as pruning removes only the oldest.
            let schema = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'history'") ?? ""
            guard schema.contains("AUTOINCREMENT") else { return }
            try db.execute(sql: """
                CREATE TABLE history_new (row INTEGER PRIMARY KEY, id INTEGER NOT NULL, app TEXT NOT NULL,
                    summary TEXT NOT NULL, body TEXT NOT NULL, level TEXT NOT NULL, decision TEXT NOT NULL,
                    received DOUBLE NOT NULL, closed DOUBLE, close_reason INTEGER);
                INSERT INTO history_new SELECT row, id, app, summary, body, level, decision, received, closed, close_reason
                    FROM history;
                DROP TABLE history;
                ALTER TABLE history_new RENAME TO history;
                CREATE INDEX history_id ON history(id);
                DELETE FROM sqlite_sequence WHERE name = 'history';
                """)
        }
        return migrator
    }

    // MARK: Settings

    public func setting(_ key: String) throws -> String? {
        try database.read { db in try String.fetchOne(db, sql: "SELECT value FROM setting WHERE key = ?", arguments: [key]) }
    }

    public func setSetting(_ key: String, _ value: String) throws {
        try database.write { db in
            try db.execute(sql: "INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                           arguments: [key, value])
        }
    }

    /// The last ID block reserved (see `IDAllocator`), 0 for a new store.
    public func idHighWater() throws -> UInt32 { try setting("id-high-water").flatMap { UInt32($0) } ?? 0 }
    public func setIDHighWater(_ value: UInt32) throws { try setSetting("id-high-water", String(value)) }

    // MARK: History

    /// Records notifications received, in one transaction.
    public func record(_ entries: [HistoryEntry]) throws {
        guard !entries.isEmpty else { return }
        if entries.count == 1 {
            // One statement commits by itself: no BEGIN and COMMIT to run (this is on the path
            // of every Notify).
            try database.writeWithoutTransaction { db in try Self.insertHistory(entries, db) }
        } else {
            try database.write { db in try Self.insertHistory(entries, db) }
        }
    }

    private static func insertHistory(_ entries: [HistoryEntry], _ db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO history (id, app, summary, body, level, decision, received, closed, close_reason)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for entry in entries {
            try statement.execute(arguments: [
                Int64(entry.id), entry.app, entry.summary, entry.body, entry.level.rawValue,
                entry.decision.rawValue, entry.received.timeIntervalSince1970,
                entry.closed?.timeIntervalSince1970, entry.closeReason.map { Int64($0) },
            ])
        }
    }

    /// Notes when and why notifications closed: (id, reason, time).
    public func markClosed(_ closings: [(id: UInt32, reason: UInt32, at: Date)]) throws {
        guard !closings.isEmpty else { return }
        try database.write { db in
            let statement = try db.cachedStatement(sql: """
                UPDATE history SET closed = ?, close_reason = ?
                WHERE row = (SELECT max(row) FROM history WHERE id = ?) AND closed IS NULL
                """)
            for closing in closings {
                try statement.execute(arguments: [closing.at.timeIntervalSince1970, Int64(closing.reason), Int64(closing.id)])
            }
        }
    }

    /// Newest first; `app` matches without regard to case.
    public func history(limit: Int, app: String? = nil) throws -> [HistoryEntry] {
        try database.read { db in
            var sql = "SELECT id, app, summary, body, level, decision, received, closed, close_reason FROM history"
            var arguments: StatementArguments = []
            if let app, !app.isEmpty {
                sql += " WHERE app = ? COLLATE NOCASE"
                arguments += [app]
            }
            sql += " ORDER BY row DESC LIMIT ?"
            arguments += [limit]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                HistoryEntry(
                    id: UInt32(row["id"] as Int64), app: row["app"], summary: row["summary"], body: row["body"],
                    level: InterruptionLevel(rawValue: row["level"]) ?? .active,
                    decision: DeliveryOutcome(rawValue: row["decision"]) ?? .delivered,
                    received: Date(timeIntervalSince1970: row["received"]),
                    closed: (row["closed"] as Double?).map { Date(timeIntervalSince1970: $0) },
                    closeReason: (row["close_reason"] as Int64?).map { UInt32($0) })
            }
        }
    }

    /// How many history rows there are, by decision.
    public func countsByDecision() throws -> [DeliveryOutcome: Int] {
        try database.read { db in
            var counts: [DeliveryOutcome: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT decision, count(*) AS n FROM history GROUP BY decision") {
                if let outcome = DeliveryOutcome(rawValue: row["decision"]) { counts[outcome] = row["n"] }
            }
            return counts
        }
    }

    // MARK: Held notifications

    /// Holds a notification and records it in history, in one transaction: once this returns,
    /// the notification survives a crash.
    public func hold(_ item: HeldNotification, payloadType: String, payload: [UInt8], history: HistoryEntry) throws {
        try commit(history: [history], holds: [Hold(item: item, payloadType: payloadType, payload: payload)])
    }

    private static func insertHeld(_ hold: Hold, _ db: Database) throws {
        let item = hold.item
        let (kind, focus): (String, String?) = switch item.reason {
        case .summary: ("summary", nil)
        case .focus(let name): ("focus", name)
        }
        let statement = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO held (id, kind, focus, app, summary, body, level, relevance, received, sender, pid,
                                         digest, payload_type, payload)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)
            """)
        try statement.execute(arguments: [Int64(item.id), kind, focus, item.app, item.summary, item.body, item.level.rawValue,
                                          item.relevance, item.received.timeIntervalSince1970, item.sender,
                                          item.processID.map { Int64($0) }, hold.payloadType, Data(hold.payload)])
    }

    /// A held notification with its original `Notify` arguments, for `commit`.
    public struct Hold: Sendable {
        public var item: HeldNotification
        public var payloadType: String
        public var payload: [UInt8]

        public init(item: HeldNotification, payloadType: String, payload: [UInt8]) {
            self.item = item
            self.payloadType = payloadType
            self.payload = payload
        }
    }

    /// Records history and held notifications together, in one transaction (group commit: many
    /// calls answered by one write).
    public func commit(history: [HistoryEntry], holds: [Hold]) throws {
        guard !history.isEmpty || !holds.isEmpty else { return }
        if holds.isEmpty && history.count == 1 { return try record(history) }
        try database.write { db in
            for hold in holds { try Self.insertHeld(hold, db) }
            try Self.insertHistory(history, db)
        }
    }

    /// Every held notification with the digest it went out in (nil: still waiting), oldest first.
    public func heldNotifications() throws -> [(item: HeldNotification, digest: UInt32?)] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, kind, focus, app, summary, body, level, relevance, received, sender, pid, digest
                FROM held ORDER BY received, id
                """).map { row in
                let kind: String = row["kind"]
                let reason: HeldNotification.Reason = kind == "summary" ? .summary : .focus(row["focus"] ?? "")
                let item = HeldNotification(
                    id: UInt32(row["id"] as Int64), reason: reason, app: row["app"], summary: row["summary"],
                    body: row["body"], level: InterruptionLevel(rawValue: row["level"]) ?? .active,
                    relevance: row["relevance"], received: Date(timeIntervalSince1970: row["received"]),
                    sender: row["sender"], processID: (row["pid"] as Int64?).map { UInt32($0) })
                return (item, (row["digest"] as Int64?).map { UInt32($0) })
            }
        }
    }

    /// The original `Notify` arguments of a held notification.
    public func heldPayload(_ id: UInt32) throws -> (type: String, bytes: [UInt8])? {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT payload_type, payload FROM held WHERE id = ?",
                                             arguments: [Int64(id)]) else { return nil }
            return (row["payload_type"], [UInt8](row["payload"] as Data))
        }
    }

    public func removeHeld(_ ids: [UInt32]) throws {
        guard !ids.isEmpty else { return }
        try database.write { db in
            for id in ids { try db.execute(sql: "DELETE FROM held WHERE id = ?", arguments: [Int64(id)]) }
        }
    }

    /// Notes that these held notifications went out in digest `digest` (they wait for its
    /// Show All or Dismiss).
    public func assignDigest(_ ids: [UInt32], digest: UInt32?) throws {
        try database.write { db in
            for id in ids {
                try db.execute(sql: "UPDATE held SET digest = ? WHERE id = ?", arguments: [digest.map { Int64($0) }, Int64(id)])
            }
        }
    }

    /// Forgets history received before `date`; returns how many rows went.
    @discardableResult
    public func pruneHistory(before date: Date) throws -> Int {
        try database.write { db in
            try db.execute(sql: "DELETE FROM history WHERE received < ?", arguments: [date.timeIntervalSince1970])
            return db.changesCount
        }
    }
}
