import Foundation
import FocusBridgeCore
import GRDB

/// Why the state database cannot be used, in one sentence that names the file.
public struct StoreError: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) { self.description = description }

    init(opening path: String, _ error: Error) {
        if let error = error as? DatabaseError {
            let what = error.message ?? "SQLite error \(error.resultCode.rawValue)"
            if error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED {
                description = "the state database \(path) is locked by another program (\(what)); close it and start again"
            } else {
                description = "cannot open the state database \(path): \(what)"
            }
        } else {
            description = "cannot open the state database \(path): \(StateFolder.reason(error))"
        }
    }
}

/// FocusBridge's durable state in SQLite: the history of notifications and small settings such
/// as the ID high-water mark. The file is private to the user (0600, folder 0700) and in WAL
/// mode, so a crash loses nothing that was committed.
public final class Store {
    public let path: String
    let database: DatabaseQueue
    /// Told, in one sentence, about anything in the file that was discarded or repaired.
    private let notice: (String) -> Void

    /// Opens (creating when needed) `state.sqlite3` in `directory`. A file SQLite calls corrupt
    /// or not a database is moved aside (with its -wal and -shm) as
    /// `state.sqlite3.broken-YYYYMMDD-HHMMSS` and a fresh one started: `notice` gets one sentence
    /// naming both. A symbolic link is refused (it would adopt another file, and SQLite would give
    /// its -wal the other file's mode). Other failures throw `StoreError`, one sentence.
    public init(directory: String, notice: @escaping (String) -> Void = { _ in }) throws {
        self.notice = notice
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
        } catch {
            throw StoreError(description: "cannot use the state folder \(directory): \(StateFolder.reason(error))")
        }
        path = (directory as NSString).appendingPathComponent("state.sqlite3")
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            if lstat(file, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK {
                let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: file)) ?? "?"
                throw StoreError(description: "the state database \(file) is a symbolic link (to \(target)); focus-bridge "
                    + "opens only a file of its own there: move the link away (focus-bridge then starts a fresh one)")
            }
        }
        let previousMask = umask(0o077)
        defer { umask(previousMask) }
        do {
            database = try Self.open(path)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            let aside = try Self.moveAside(path)
            notice("the state database \(path) is broken (\(error.message ?? "SQLite error \(error.resultCode.rawValue)")); "
                + "it was moved aside to \(aside) and focus-bridge starts with a fresh one")
            do { database = try Self.open(path) } catch { throw StoreError(opening: path, error) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(opening: path, error)
        }
    }

    /// Opens, sets the modes, migrates and checks the file (a truncated file may open well and
    /// fail only on the pages it lacks: `quick_check` reads them all once).
    private static func open(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Only the daemon opens the file (focusctl asks over D-Bus), so it keeps the lock:
            // no file locking on every transaction, and a second daemon cannot open the store.
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
        }
        let database = try DatabaseQueue(path: path, configuration: configuration)
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
        let check = try database.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        guard check == ["ok"] else {
            throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "quick_check: \(check.prefix(3).joined(separator: "; "))")
        }
        try migrator.migrate(database)
        return database
    }

    /// Renames `path` and its -wal and -shm to `path.broken-YYYYMMDD-HHMMSS[-wal|-shm]`; the new name.
    private static func moveAside(_ path: String) throws -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        let stamp = String(format: "%04d%02d%02d-%02d%02d%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                           Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
        var aside = "\(path).broken-\(stamp)"
        var attempt = 1
        while FileManager.default.fileExists(atPath: aside) {
            attempt += 1
            aside = "\(path).broken-\(stamp)-\(attempt)"
        }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            guard rename(path + suffix, aside + suffix) == 0 else {
                throw StoreError(description: "the state database \(path) is broken and cannot be moved aside to "
                    + "\(aside + suffix): \(String(cString: strerror(errno)))")
            }
            chmod(aside + suffix, 0o600)
        }
        return aside
    }

    /// The schema's history. A migration never changes once released: files made by every
    /// release run the migrations they lack, in order, from what that release wrote
    /// (StoreTests opens a file of each). A change is a new migration at the end.
    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "setting") { t in
                t.primaryKey("key", .text)
                t.column("value", .text).notNull()
            }
            // As first released; v3 and v4 bring it to today's table.
            try db.create(table: "history") { t in
                t.autoIncrementedPrimaryKey("row")
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
            try db.create(index: "history_app", on: "history", columns: ["app"])
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
        migrator.registerMigration("v5-held-holders") { db in
            // Who holds each held ID, with their Unix user and sandbox (ownership, focus-bridge(1), BEHAVIOUR);
            // rows from before have only the sender's connection.
            try db.alter(table: "held") { t in t.add(column: "holders", .text) }
        }
        migrator.registerMigration("v6-app-choices") { db in
            // Run-time choices per app (`focusctl app`), mutes, and the apps asked about Time
            // Sensitive (Store+Choices.swift). `app_key` is the app key lowercased.
            try db.execute(sql: """
                CREATE TABLE app_choice (app_key TEXT NOT NULL, app TEXT NOT NULL, key TEXT NOT NULL,
                                         value TEXT NOT NULL, made REAL NOT NULL, PRIMARY KEY (app_key, key));
                CREATE TABLE app_mute (app_key TEXT PRIMARY KEY, app TEXT NOT NULL, until REAL NOT NULL);
                CREATE TABLE app_asked (app_key TEXT PRIMARY KEY, app TEXT NOT NULL, answer TEXT NOT NULL, at REAL NOT NULL);
                """)
        }
        migrator.registerMigration("v7-history-fate") { db in
            // What explain ID and show ID need of each notification (`KeptRequest`, JSON, bounded)
            // and what became of it after its decision (`Fate`, one line per step). Rows from
            // before have neither: explain says so, history shows their decision and close.
            try db.alter(table: "history") { t in
                t.add(column: "request", .text)
                t.add(column: "fate", .text)
            }
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

    /// The last ID block reserved (see `IDAllocator`), 0 for a new store. A stored value that is
    /// not a 32-bit number is replaced by the highest ID the file knows (history, held) plus a
    /// block, so no ID is given out twice; `notice` says so.
    public func idHighWater() throws -> UInt32 {
        guard let text = try setting("id-high-water") else { return 0 }
        if let value = UInt32(text) { return value }
        let highest = try database.read { db in
            try Int64.fetchOne(db, sql: "SELECT max(m) FROM (SELECT max(id) AS m FROM history UNION ALL SELECT max(id) FROM held)")
        } ?? 0
        let value = UInt32(clamping: highest).addingReportingOverflow(IDAllocator.blockSize)
        let mark = value.overflow ? UInt32.max : value.partialValue
        notice("the stored ID high-water mark is not valid (\(text.prefix(40))); IDs continue after \(mark), past every ID in the state database")
        return mark
    }
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
            INSERT INTO history (id, app, summary, body, level, decision, received, closed, close_reason, request, fate)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for entry in entries {
            try statement.execute(arguments: [
                Int64(entry.id), entry.app, entry.summary, entry.body, entry.level.rawValue,
                entry.decision.rawValue, entry.received.timeIntervalSince1970,
                entry.closed?.timeIntervalSince1970, entry.closeReason.map { Int64($0) },
                entry.kept?.stored, entry.steps.isEmpty ? nil : Fate.encode(entry.steps),
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

    /// Adds a step to the fate of each notification (its newest history row): (id, step).
    public func noteFates(_ notes: [(id: UInt32, step: FateStep)]) throws {
        guard !notes.isEmpty else { return }
        try database.write { db in
            let read = try db.cachedStatement(sql: "SELECT row, fate FROM history WHERE row = (SELECT max(row) FROM history WHERE id = ?)")
            let write = try db.cachedStatement(sql: "UPDATE history SET fate = ? WHERE row = ?")
            for note in notes {
                guard let row = try Row.fetchOne(read, arguments: [Int64(note.id)]),
                      let number = row.lenient(Int64.self, "row") else { continue }
                let steps = Fate.appending(note.step, to: Fate.decode(row.lenient(String.self, "fate")))
                try write.execute(arguments: [Fate.encode(steps), number])
            }
        }
    }

    /// The newest history row of notification `id`, with what was kept of it; nil when history
    /// has none.
    public func entry(id: UInt32) throws -> HistoryEntry? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT id, app, summary, body, level, decision, received, closed, close_reason, fate, "
                             + "request FROM history WHERE row = (SELECT max(row) FROM history WHERE id = ?)",
                             arguments: [Int64(id)]).flatMap { Self.entry($0, kept: true) }
        }
    }

    /// A history row read leniently: a row whose values cannot be used is nil, never trapped on.
    private static func entry(_ row: Row, kept: Bool) -> HistoryEntry? {
        guard let id = row.lenient(Int64.self, "id").flatMap(UInt32.init(exactly:)),
              let received = row.lenient(Double.self, "received"), received.isFinite else { return nil }
        return HistoryEntry(
            id: id, app: row.lenient(String.self, "app") ?? "", summary: row.lenient(String.self, "summary") ?? "",
            body: row.lenient(String.self, "body") ?? "",
            level: row.lenient(String.self, "level").flatMap(InterruptionLevel.init(rawValue:)) ?? .active,
            decision: row.lenient(String.self, "decision").flatMap(DeliveryOutcome.init(rawValue:)) ?? .delivered,
            received: Date(timeIntervalSince1970: received),
            closed: row.lenient(Double.self, "closed").flatMap { $0.isFinite ? Date(timeIntervalSince1970: $0) : nil },
            closeReason: row.lenient(Int64.self, "close_reason").flatMap(UInt32.init(exactly:)),
            steps: Fate.decode(row.lenient(String.self, "fate")),
            kept: kept ? KeptRequest.read(row.lenient(String.self, "request")) : nil)
    }

    /// Newest first; `app` matches without regard to case.
    public func history(limit: Int, app: String? = nil) throws -> [HistoryEntry] {
        try database.read { db in
            var sql = "SELECT id, app, summary, body, level, decision, received, closed, close_reason, fate FROM history"
            var arguments: StatementArguments = []
            if let app, !app.isEmpty {
                sql += " WHERE app = ? COLLATE NOCASE"
                arguments += [app]
            }
            sql += " ORDER BY row DESC LIMIT ?"
            arguments += [limit]
            // Rows are read leniently: a row whose values cannot be used is left out, never trapped on.
            return try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { Self.entry($0, kept: false) }
        }
    }

    /// How many history rows there are, by decision.
    public func countsByDecision() throws -> [DeliveryOutcome: Int] {
        try database.read { db in
            var counts: [DeliveryOutcome: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT decision, count(*) AS n FROM history GROUP BY decision") {
                if let outcome = row.lenient(String.self, "decision").flatMap(DeliveryOutcome.init(rawValue:)) {
                    counts[outcome, default: 0] += row.lenient(Int.self, "n") ?? 0
                }
            }
            return counts
        }
    }

    // MARK: Held notifications

    private static func insertHeld(_ hold: Hold, _ db: Database) throws {
        let item = hold.item
        let (kind, focus): (String, String?) = switch item.reason {
        case .summary: ("summary", nil)
        case .focus(let name): ("focus", name)
        }
        let statement = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO held (id, kind, focus, app, summary, body, level, relevance, received, sender, pid,
                                         digest, payload_type, payload, holders)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)
            """)
        try statement.execute(arguments: [Int64(item.id), kind, focus, item.app, item.summary, item.body, item.level.rawValue,
                                          item.relevance, item.received.timeIntervalSince1970,
                                          item.holders.first?.connection ?? "",
                                          item.processID.map { Int64($0) }, hold.payloadType, Data(hold.payload),
                                          Caller.stored(item.holders)])
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
    /// A row whose values cannot be used (wrong types, an ID out of range, a time that is not
    /// finite) is deleted and `notice` told once: it must not stop the bridge from starting.
    public func heldNotifications() throws -> [(item: HeldNotification, digest: UInt32?)] {
        var unusable: [DatabaseValue] = []
        let items = try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, kind, focus, app, summary, body, level, relevance, received, sender, pid, digest, holders
                FROM held ORDER BY received, id
                """).compactMap { row -> (item: HeldNotification, digest: UInt32?)? in
                guard let id = row.lenient(Int64.self, "id").flatMap(UInt32.init(exactly:)), id != 0,
                      let received = row.lenient(Double.self, "received"), received.isFinite,
                      let relevance = row.lenient(Double.self, "relevance"), relevance.isFinite,
                      let sender = row.lenient(String.self, "sender") else {
                    unusable.append(row["id"] as DatabaseValue)
                    return nil
                }
                let reason: HeldNotification.Reason = row.lenient(String.self, "kind") == "summary"
                    ? .summary : .focus(row.lenient(String.self, "focus") ?? "")
                let item = HeldNotification(
                    id: id, reason: reason, app: row.lenient(String.self, "app") ?? "",
                    summary: row.lenient(String.self, "summary") ?? "", body: row.lenient(String.self, "body") ?? "",
                    level: row.lenient(String.self, "level").flatMap(InterruptionLevel.init(rawValue:)) ?? .active,
                    relevance: relevance, received: Date(timeIntervalSince1970: received),
                    holders: Self.holders(stored: row.lenient(String.self, "holders"), sender: sender),
                    processID: row.lenient(Int64.self, "pid").flatMap(UInt32.init(exactly:)))
                return (item, row.lenient(Int64.self, "digest").flatMap(UInt32.init(exactly:)))
            }
        }
        if !unusable.isEmpty {
            notice("\(unusable.count) held notification(s) in the state database cannot be read; they are discarded")
            try database.write { db in
                for id in unusable { try db.execute(sql: "DELETE FROM held WHERE id IS ?", arguments: [id]) }
            }
        }
        return items
    }

    /// The holders of a held row; a row without them (older file) or with damaged ones keeps
    /// only its sender's connection, which nothing but that connection can act for.
    private static func holders(stored: String?, sender: String) -> [Caller] {
        let holders = stored.map(Caller.callers(stored:)) ?? []
        return holders.isEmpty ? [Caller(connection: sender)] : holders
    }

    /// The original `Notify` arguments of a held notification.
    public func heldPayload(_ id: UInt32) throws -> (type: String, bytes: [UInt8])? {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT payload_type, payload FROM held WHERE id = ?",
                                             arguments: [Int64(id)]) else { return nil }
            guard let type = row.lenient(String.self, "payload_type"), let bytes = row.lenient(Data.self, "payload") else { return nil }
            return (type, [UInt8](bytes))
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

extension Row {
    /// A column's value when it is of the asked type, else nil: what the file holds is not trusted
    /// (GRDB's typed subscript traps on NULL or on a value of another type).
    func lenient<Value: DatabaseValueConvertible>(_ type: Value.Type, _ column: String) -> Value? {
        Value.fromDatabaseValue(self[column] as DatabaseValue)
    }
}
