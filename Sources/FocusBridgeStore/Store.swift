import FocusBridgeCore
import FocusBridgeSystem
import FocusBridgeTime
#if canImport(Glibc)
import Glibc
#endif

/// Why the state database cannot be used, in one sentence that names the file.
public struct StoreError: Error, CustomStringConvertible {
    public let description: String
    /// Another program (another focus-bridge) has the file: running without it would be two
    /// bridges on one state, so this one stops rather than keep its state in memory.
    public var isLocked = false

    public init(description: String) { self.description = description }

    init(opening path: String, _ error: Error) {
        if let error = error as? SQLiteError {
            let what = error.reason
            if error.isBusyOrLocked {
                description = "the state database \(path) is locked by another program (\(what)); close it and start again"
                isLocked = true
            } else {
                description = "cannot open the state database \(path): \(what)"
            }
        } else {
            description = "cannot open the state database \(path): \(error)"
        }
    }
}

/// FocusBridge's durable state in SQLite: the history of notifications and small settings such
/// as the ID high-water mark. The file is private to the user (0600, folder 0700) and in WAL
/// mode, so a crash loses nothing that was committed.
///
/// One connection, used from the bridge's main loop only (SQLite.swift: statements prepared
/// once and cached, one transaction per group commit).
public final class Store {
    /// The file (`state.sqlite3`); while in memory, the file it is to be moved to.
    public private(set) var path: String
    private(set) var database: SQLiteDatabase
    /// While the store is in memory (`init(inMemory:)`): why the state folder cannot be used.
    /// nil once on disk.
    public private(set) var inMemoryBecause: String?
    /// The in-memory database's name, which the file's connection attaches to move it over.
    private var memoryName: String?
    /// The history insert, prepared once (every Notify runs it).
    private var historyInsert: Statement?
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
            try Folders.create(directory, mode: 0o700)
            try FileStatus.setMode(directory, 0o700)
        } catch {
            throw StoreError(description: "cannot use the state folder \(directory): \(error)")
        }
        path = FilePath.appending(directory, "state.sqlite3")
        for file in [path, path + "-wal", path + "-shm"] {
            if FileStatus.isSymbolicLink(file) {
                let target = (try? FileStatus.symbolicLinkDestination(file)) ?? "?"
                throw StoreError(description: "the state database \(file) is a symbolic link (to \(target)); focus-bridge "
                    + "opens only a file of its own there: move the link away (focus-bridge then starts a fresh one)")
            }
        }
        let previousMask = umask(0o077)
        defer { umask(previousMask) }
        do {
            database = try Self.open(path)
        } catch let error as SQLiteError where error.isCorrupt {
            let aside = try Self.moveAside(path)
            notice("the state database \(path) is broken (\(error.reason)); "
                + "it was moved aside to \(aside) and focus-bridge starts with a fresh one")
            do { database = try Self.open(path) } catch { throw StoreError(opening: path, error) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(opening: path, error)
        }
    }

    /// A store in memory, for a state folder that cannot be used (`reason`, one sentence): the
    /// bridge runs on it as on the file, and `move(to:)` writes it all there once it can.
    /// `directory` is the folder it is meant for; `idHighWater` where IDs start (no file tells
    /// which were given out before).
    public init(inMemory reason: String, directory: String, idHighWater: UInt32) throws {
        notice = { _ in }
        path = FilePath.appending(directory, "state.sqlite3")
        inMemoryBecause = reason
        // Named and shared: the file's own connection attaches it by that name to copy it over.
        let name = "file:focus-bridge-\(getpid())?mode=memory&cache=shared"
        memoryName = name
        database = try SQLiteDatabase(path: name, flags: SQLiteDatabase.defaultFlags | SQLiteDatabase.uriFlag)
        try Self.migrate(database)
        try setIDHighWater(idHighWater)
    }

    /// Writes everything of this in-memory store into `disk` (a store just opened on the file),
    /// then goes on with that file: history and held notifications are added to the file's,
    /// settings and choices made meanwhile win, the ID high-water mark is the higher of both.
    /// Does nothing for a store already on disk.
    public func move(to disk: Store) throws {
        guard let memoryName else { return }
        let file = disk.database
        try file.execute("ATTACH DATABASE ? AS volatile", [memoryName])
        defer { try? file.execute("DETACH DATABASE volatile") }
        let mark = max(try idHighWater(), try disk.idHighWater())
        let history = "id, app, summary, body, level, decision, received, closed, close_reason, request, fate, via, acted"
        let held = "id, kind, focus, app, summary, body, level, relevance, received, sender, pid, digest, payload_type, payload, holders"
        try file.transaction {
            try file.execute("INSERT INTO main.history (\(history)) SELECT \(history) FROM volatile.history ORDER BY row")
            try file.execute("INSERT OR REPLACE INTO main.held (\(held)) SELECT \(held) FROM volatile.held")
            try file.execute("INSERT OR REPLACE INTO main.setting (key, value) SELECT key, value FROM volatile.setting")
            for table in ["app_choice", "app_mute", "app_asked"] {
                try file.execute("INSERT OR REPLACE INTO main.\(table) SELECT * FROM volatile.\(table)")
            }
            try file.execute("INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                             [SettingKey.idHighWater.rawValue, String(mark)])
        }
        database = file
        path = disk.path
        historyInsert = nil
        inMemoryBecause = nil
        self.memoryName = nil
    }

    /// Opens, sets the modes, migrates and checks the file (a truncated file may open well and
    /// fail only on the pages it lacks: `quick_check` reads them all once).
    private static func open(_ path: String) throws -> SQLiteDatabase {
        // A file that is not a database (or is damaged in its first page) fails here.
        // URI names are taken in ATTACH: how an in-memory store is moved into the file (`move(to:)`).
        let database = try SQLiteDatabase(path: path, flags: SQLiteDatabase.defaultFlags | SQLiteDatabase.uriFlag, busyTimeout: 5000)
        try database.execute("PRAGMA synchronous = NORMAL")
        // Only the daemon opens the file (focusctl asks over D-Bus), so it keeps the lock:
        // no file locking on every transaction, and a second daemon cannot open the store.
        try database.execute("PRAGMA locking_mode = EXCLUSIVE")
        // A new file gets 1 KiB pages (a file made earlier keeps its own: WAL mode fixes it). Every
        // commit writes each page it changed whole to the -wal file with a checksum, and a commit is
        // one main-loop pass, often one ~450-byte history row: smaller pages mean fewer bytes
        // checksummed per Notify (docs/BENCHMARKS.md has the figures).
        try database.execute("PRAGMA page_size = 1024")
        guard try database.strings("PRAGMA journal_mode = WAL") == ["wal"] else {
            throw SQLiteError(code: 1, message: "could not activate WAL Mode at path: \(path)")
        }
        try database.execute("PRAGMA synchronous = NORMAL")
        // The -wal file exists, not empty, from the start, as in the files of every release (the
        // write GRDB's opening does, hence the table's name): its mode is set just below with the
        // database's.
        if FileStatus.size(path + "-wal") ?? 0 == 0 {
            try database.execute("""
                SAVEPOINT wal; CREATE TABLE grdb_issue_102 (id INTEGER PRIMARY KEY); DROP TABLE grdb_issue_102; RELEASE wal
                """)
        }
        for file in [path, path + "-wal", path + "-shm"] where FileStatus.exists(file) {
            try FileStatus.setMode(file, 0o600)
        }
        let check = try database.strings("PRAGMA quick_check")
        guard check == ["ok"] else {
            throw SQLiteError(code: 11 /* SQLITE_CORRUPT */, message: "quick_check: \(check.prefix(3).joined(separator: "; "))")
        }
        try migrate(database)
        // quick_check filled the page cache with the whole file (up to the cache's 2 MB): what
        // the bridge needs is read again as it goes.
        database.releaseMemory()
        return database
    }

    /// Renames `path` and its -wal and -shm to `path.broken-YYYYMMDD-HHMMSS[-wal|-shm]`; the new name.
    private static func moveAside(_ path: String) throws -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        let stamp = digits(Int(parts.tm_year) + 1900, 4) + digits(Int(parts.tm_mon) + 1) + digits(Int(parts.tm_mday))
            + "-" + digits(Int(parts.tm_hour)) + digits(Int(parts.tm_min)) + digits(Int(parts.tm_sec))
        var aside = "\(path).broken-\(stamp)"
        var attempt = 1
        while FileStatus.exists(aside) {
            attempt += 1
            aside = "\(path).broken-\(stamp)-\(attempt)"
        }
        for suffix in ["", "-wal", "-shm"] where FileStatus.exists(path + suffix) {
            guard rename(path + suffix, aside + suffix) == 0 else {
                throw StoreError(description: "the state database \(path) is broken and cannot be moved aside to "
                    + "\(aside + suffix): \(String(cString: strerror(errno)))")
            }
            chmod(aside + suffix, 0o600)
        }
        return aside
    }

    /// `value` in decimal, zero-padded to `width` digits (`%0*d`).
    static func digits(_ value: Int, _ width: Int = 2) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    // MARK: Migrations

    /// A step of the schema's history: its name, recorded once applied, and what it does.
    struct Migration: Sendable {
        let name: String
        let run: @Sendable (SQLiteDatabase) throws -> Void

        init(_ name: String, sql: String) {
            self.name = name
            self.run = { try $0.execute(sql) }
        }

        init(_ name: String, run: @escaping @Sendable (SQLiteDatabase) throws -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// Applies, in order, each migration the file has not recorded: each in its own transaction
    /// with its record. The records are in `grdb_migrations`, the table (and names) GRDB's migrator
    /// keeps, which the files of every release have: a file of any release opens and runs only
    /// what it lacks.
    static func migrate(_ database: SQLiteDatabase) throws {
        try database.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        let applied = Set(try database.strings("SELECT identifier FROM grdb_migrations"))
        for migration in migrations where !applied.contains(migration.name) {
            try database.transaction {
                try migration.run(database)
                try database.execute("INSERT INTO grdb_migrations (identifier) VALUES (?)", [migration.name])
            }
        }
    }

    /// The schema's history. A migration NEVER changes once released: files made by every
    /// release run the migrations they lack, in order, from what that release wrote (StoreTests
    /// opens a file of each). A change is a new migration at the end. The SQL of v1 to v7 is,
    /// character for character, what GRDB's schema builders make of them, so a new file has the
    /// schema of every release's new file.
    static let migrations: [Migration] = [
        Migration("v1", sql: """
            CREATE TABLE "setting" ("key" TEXT PRIMARY KEY NOT NULL, "value" TEXT NOT NULL);
            CREATE TABLE "history" ("row" INTEGER PRIMARY KEY AUTOINCREMENT, "id" INTEGER NOT NULL, "app" TEXT NOT NULL, \
            "summary" TEXT NOT NULL, "body" TEXT NOT NULL, "level" TEXT NOT NULL, "decision" TEXT NOT NULL, \
            "received" DOUBLE NOT NULL, "closed" DOUBLE, "close_reason" INTEGER);
            CREATE INDEX "history_id" ON "history"("id");
            CREATE INDEX "history_app" ON "history"("app");
            """),
        // focus: the Focus that held it; digest: the digest it was delivered in; payload_type and
        // payload: the original Notify arguments, serialised GVariant, byte for byte.
        Migration("v2-held", sql: """
            CREATE TABLE "held" ("id" INTEGER PRIMARY KEY, "kind" TEXT NOT NULL, "focus" TEXT, "app" TEXT NOT NULL, \
            "summary" TEXT NOT NULL, "body" TEXT NOT NULL, "level" TEXT NOT NULL, "relevance" DOUBLE NOT NULL, \
            "received" DOUBLE NOT NULL, "sender" TEXT NOT NULL, "pid" INTEGER, "digest" INTEGER, \
            "payload_type" TEXT NOT NULL, "payload" BLOB NOT NULL)
            """),
        // `history --app` compares without regard to case, which this index cannot serve; it
        // only cost a third B-tree write on every Notify.
        Migration("v3-no-app-index", sql: "DROP INDEX IF EXISTS history_app"),
        // AUTOINCREMENT kept `sqlite_sequence` up to date: one more B-tree written on every
        // Notify (a quarter of the insert's time). A plain INTEGER PRIMARY KEY is the rowid:
        // new rows still come after every existing one, as pruning removes only the oldest.
        Migration("v4-history-rowid") { database in
            let schema = try database.strings("SELECT sql FROM sqlite_master WHERE name = 'history'").first ?? ""
            guard schema.contains("AUTOINCREMENT") else { return }
            try database.execute("""
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
        },
        // Who holds each held ID, with their Unix user and sandbox (ownership, focus-bridge(1), BEHAVIOUR);
        // rows from before have only the sender's connection.
        Migration("v5-held-holders", sql: #"ALTER TABLE "held" ADD COLUMN "holders" TEXT"#),
        // Run-time choices per app (`focusctl app`), mutes, and the apps asked about Time
        // Sensitive (Store+Choices.swift). `app_key` is the app key lowercased.
        Migration("v6-app-choices", sql: """
            CREATE TABLE app_choice (app_key TEXT NOT NULL, app TEXT NOT NULL, key TEXT NOT NULL,
                                     value TEXT NOT NULL, made REAL NOT NULL, PRIMARY KEY (app_key, key));
            CREATE TABLE app_mute (app_key TEXT PRIMARY KEY, app TEXT NOT NULL, until REAL NOT NULL);
            CREATE TABLE app_asked (app_key TEXT PRIMARY KEY, app TEXT NOT NULL, answer TEXT NOT NULL, at REAL NOT NULL);
            """),
        // What explain ID and show ID need of each notification (`KeptRequest`, JSON, bounded)
        // and what became of it after its decision (`Fate`, one line per step). Rows from
        // before have neither: explain says so, history shows their decision and close.
        Migration("v7-history-fate", sql: """
            ALTER TABLE "history" ADD COLUMN "request" TEXT;
            ALTER TABLE "history" ADD COLUMN "fate" TEXT
            """),
        // The browser that sent a web page's notification, whose `app` is the page's site
        // (`HistoryEntry.via`); NULL for any other, and for rows from before.
        Migration("v8-history-via", sql: #"ALTER TABLE "history" ADD COLUMN "via" TEXT"#),
        // When an action of the notification's app was first invoked on it, in seconds since
        // 1970 (`NotificationOutcome.acted`). Rows from before have none: their outcome is read
        // from their close alone.
        Migration("v9-history-acted", sql: #"ALTER TABLE "history" ADD COLUMN "acted" DOUBLE"#),
    ]

    // MARK: Settings

    /// Gives SQLite's page cache back to the heap (after a burst, before the heap is trimmed).
    public func releaseMemory() { database.releaseMemory() }

    /// The keys of the `setting` table: a raw value is the key as state files hold it.
    public enum SettingKey: String, CaseIterable, Sendable {
        /// The last ID block reserved (`idHighWater`).
        case idHighWater = "id-high-water"
        /// Silent mode, `on` or `off`.
        case silent
        /// The Focus turned on or off by hand, as JSON (`null`: none).
        case manualFocus = "manual-focus"
        /// When the scheduled summary was last looked for, in seconds since 1970.
        case summaryChecked = "summary-checked"
        /// `[share]`'s ledger of the devices seen, as JSON.
        case share
        /// When the weekly Time Sensitive review was last looked for, in seconds since 1970.
        case reviewChecked = "review-checked"
        /// The apps the Time Sensitive review asked about (`ReviewMemory`), as JSON.
        case reviews
    }

    public func setting(_ key: SettingKey) throws -> String? {
        try database.statement("SELECT value FROM setting WHERE key = ?").firstRow([key.rawValue]) { $0.string(0) }
    }

    public func setSetting(_ key: SettingKey, _ value: String) throws {
        try database.execute("INSERT INTO setting (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                             [key.rawValue, value])
    }

    /// The last ID block reserved (see `IDAllocator`), 0 for a new store. A stored value that is
    /// not a 32-bit number is replaced by the highest ID the file knows (history, held) plus a
    /// block, so no ID is given out twice; `notice` says so.
    public func idHighWater() throws -> UInt32 {
        guard let text = try setting(.idHighWater) else { return 0 }
        if let value = UInt32(text) { return value }
        let highest = try database.statement("SELECT max(m) FROM (SELECT max(id) AS m FROM history UNION ALL SELECT max(id) FROM held)")
            .firstRow { $0.int64(0) } ?? 0
        let value = UInt32(clamping: highest).addingReportingOverflow(IDAllocator.blockSize)
        let mark = value.overflow ? UInt32.max : value.partialValue
        notice("the stored ID high-water mark is not valid (\(text.prefix(40))); IDs continue after \(mark), past every ID in the state database")
        return mark
    }
    public func setIDHighWater(_ value: UInt32) throws { try setSetting(.idHighWater, String(value)) }

    // MARK: History

    /// Records notifications received, in one transaction.
    public func record(_ entries: [HistoryEntry]) throws {
        guard !entries.isEmpty else { return }
        if entries.count == 1 {
            // One statement commits by itself: no BEGIN and COMMIT to run (this is on the path
            // of every Notify).
            try insertHistory(entries)
        } else {
            try database.transaction { try insertHistory(entries) }
        }
    }

    private func insertHistory(_ entries: [HistoryEntry]) throws {
        // Kept here as well as in the database's cache: looking it up there hashes the SQL text.
        let statement: Statement
        if let insert = historyInsert {
            statement = insert
        } else {
            statement = try database.statement("""
                INSERT INTO history (id, app, summary, body, level, decision, received, closed, close_reason, request, fate, via)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            historyInsert = statement
        }
        rowsSinceSizeCheck &+= entries.count
        for entry in entries {
            try statement.reset()
            try statement.bind(Int64(entry.id), at: 1)
            try statement.bind(entry.received.timeIntervalSince1970, at: 7)
            if let closed = entry.closed { try statement.bind(closed.timeIntervalSince1970, at: 8) }
            if let reason = entry.closeReason { try statement.bind(Int64(reason), at: 9) }
            // The history text as its bytes (valid UTF-8, no NUL): no String made of it.
            let request = entry.kept?.storedUTF8 ?? []
            let fate = entry.steps.isEmpty ? nil : Fate.encode(entry.steps)
            // The texts are bound in place while their C strings live (SQLITE_STATIC): bound as
            // copies, SQLite would allocate and copy each once more before writing the row.
            // Cleared before the strings go.
            try entry.app.withCString { app in
                try entry.summary.withCString { summary in
                    try entry.body.withCString { body in
                        try entry.level.rawValue.withCString { level in
                            try entry.decision.rawValue.withCString { decision in
                                try request.withUnsafeBufferPointer { request in
                                    try Self.withCString(fate) { fate in
                                        try Self.withCString(entry.via) { via in
                                            defer { statement.clearBindings() }
                                            try statement.bind(inPlace: app, at: 2)
                                            try statement.bind(inPlace: summary, at: 3)
                                            try statement.bind(inPlace: body, at: 4)
                                            try statement.bind(inPlace: level, at: 5)
                                            try statement.bind(inPlace: decision, at: 6)
                                            if entry.kept != nil { try statement.bind(inPlace: request, at: 10) }
                                            try statement.bind(inPlace: fate, at: 11)
                                            try statement.bind(inPlace: via, at: 12)
                                            try statement.run()
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// `text` as a C string for `body`, or nil without one.
    private static func withCString<Result>(_ text: String?, _ body: (UnsafePointer<CChar>?) throws -> Result) rethrows -> Result {
        guard let text else { return try body(nil) }
        return try text.withCString(body)
    }

    /// Notes when and why notifications closed: (id, reason, time).
    public func markClosed(_ closings: [(id: UInt32, reason: UInt32, at: Instant)]) throws {
        guard !closings.isEmpty else { return }
        try database.transaction {
            let statement = try database.statement("""
                UPDATE history SET closed = ?, close_reason = ?
                WHERE row = (SELECT max(row) FROM history WHERE id = ?) AND closed IS NULL
                """)
            for closing in closings {
                try statement.execute([closing.at.timeIntervalSince1970, Int64(closing.reason), Int64(closing.id)])
            }
        }
    }

    /// Notes when the person first acted on each notification (its newest history row): an
    /// action of its app invoked (`NotificationOutcome.acted`). A later action keeps the first time.
    public func markActed(_ actions: [(id: UInt32, at: Instant)]) throws {
        guard !actions.isEmpty else { return }
        try database.transaction {
            let statement = try database.statement("""
                UPDATE history SET acted = ?
                WHERE row = (SELECT max(row) FROM history WHERE id = ?) AND acted IS NULL
                """)
            for action in actions {
                try statement.execute([action.at.timeIntervalSince1970, Int64(action.id)])
            }
        }
    }

    /// Adds a step to the fate of each notification (its newest history row): (id, step).
    public func noteFates(_ notes: [(id: UInt32, step: FateStep)]) throws {
        guard !notes.isEmpty else { return }
        try database.transaction {
            let read = try database.statement("SELECT row, fate FROM history WHERE row = (SELECT max(row) FROM history WHERE id = ?)")
            let write = try database.statement("UPDATE history SET fate = ? WHERE row = ?")
            for note in notes {
                guard let (number, fate) = try read.firstRow([Int64(note.id)], { row in row.int64(0).map { ($0, row.string(1)) } })
                else { continue }
                let steps = Fate.appending(note.step, to: Fate.decode(fate))
                try write.execute([Fate.encode(steps), number])
            }
        }
    }

    /// The newest history row of notification `id`, with what was kept of it; nil when history
    /// has none.
    public func entry(id: UInt32) throws -> HistoryEntry? {
        try database.statement("SELECT id, app, summary, body, level, decision, received, closed, close_reason, fate, via, "
                               + "request, acted, 0 FROM history WHERE row = (SELECT max(row) FROM history WHERE id = ?)")
            .firstRow([Int64(id)]) { Self.entry($0, kept: true) }
    }

    /// A history row read leniently: a row whose values cannot be used is nil, never trapped on.
    /// Columns: id, app, summary, body, level, decision, received, closed, close_reason, fate, via
    /// and, when `kept`, request, else the door it names; then acted, and whether a newer row
    /// has its ID.
    private static func entry(_ row: Statement, kept: Bool) -> HistoryEntry? {
        guard let id = row.int64(0).flatMap(UInt32.init(exactly:)),
              let received = row.double(6), received.isFinite else { return nil }
        return HistoryEntry(
            id: id, app: row.string(1) ?? "", summary: row.string(2) ?? "",
            body: row.string(3) ?? "",
            level: row.string(4).flatMap(InterruptionLevel.init(rawValue:)) ?? .active,
            decision: row.string(5).flatMap(DeliveryOutcome.init(rawValue:)) ?? .delivered,
            received: Instant(timeIntervalSince1970: received),
            closed: row.double(7).flatMap { $0.isFinite ? Instant(timeIntervalSince1970: $0) : nil },
            closeReason: row.int64(8).flatMap(UInt32.init(exactly:)),
            steps: Fate.decode(row.string(9)),
            kept: kept ? KeptRequest.read(row.string(11)) : nil,
            via: row.string(10).flatMap { $0.isEmpty ? nil : $0 },
            door: kept ? nil : row.string(11).flatMap(Door.init(rawValue:)),
            acted: row.double(12).flatMap { $0.isFinite ? Instant(timeIntervalSince1970: $0) : nil },
            replaced: (row.int64(13) ?? 0) != 0)
    }

    /// Newest first; `app` matches without regard to case.
    public func history(limit: Int, app: String? = nil) throws -> [HistoryEntry] {
        // The door is read from the kept request in SQL: the rest of it is not needed for a list.
        let columns = "SELECT id, app, summary, body, level, decision, received, closed, close_reason, fate, via, "
            + "CASE WHEN json_valid(request) THEN json_extract(request, '$.door') END, acted, "
            // A newer row with its ID: one look in the index of IDs per row listed.
            + "EXISTS (SELECT 1 FROM history AS newer WHERE newer.id = history.id AND newer.row > history.row) FROM history"
        // Rows are read leniently: a row whose values cannot be used is left out, never trapped on.
        if let app, !app.isEmpty {
            return try database.statement(columns + " WHERE app = ? COLLATE NOCASE ORDER BY row DESC LIMIT ?")
                .rows([app, limit]) { Self.entry($0, kept: false) }
        }
        return try database.statement(columns + " ORDER BY row DESC LIMIT ?").rows([limit]) { Self.entry($0, kept: false) }
    }

    /// How many history rows there are, by decision.
    public func countsByDecision() throws -> [DeliveryOutcome: Int] {
        var counts: [DeliveryOutcome: Int] = [:]
        let rows = try database.statement("SELECT decision, count(*) AS n FROM history GROUP BY decision")
            .rows { row in row.string(0).flatMap(DeliveryOutcome.init(rawValue:)).map { ($0, row.int(1) ?? 0) } }
        for (outcome, count) in rows { counts[outcome, default: 0] += count }
        return counts
    }

    // MARK: Held notifications

    private func insertHeld(_ hold: Hold) throws {
        let item = hold.item
        let (kind, focus) = Self.stored(item.reason)
        try database.statement("""
            INSERT OR REPLACE INTO held (id, kind, focus, app, summary, body, level, relevance, received, sender, pid,
                                         digest, payload_type, payload, holders)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)
            """).execute([Int64(item.id), kind, focus, item.app, item.summary, item.body, item.level.rawValue,
                          item.relevance, item.received.timeIntervalSince1970,
                          item.holders.first?.connection ?? "",
                          item.processID.map { Int64($0) }, hold.payloadType, hold.payload,
                          Caller.stored(item.holders)])
    }

    /// What holds it, as the `kind` and `focus` columns keep it: a snooze keeps its end in
    /// `focus`, in seconds since 1970 (no column of its own: no migration for it).
    private static func stored(_ reason: HeldNotification.Reason) -> (kind: String, focus: String?) {
        switch reason {
        case .summary: ("summary", nil)
        case .focus(let name): ("focus", name)
        case .snooze(let until): ("snooze", String(until.timeIntervalSince1970))
        }
    }

    /// The reason of a stored row; a snooze whose end cannot be read is due now (shown, never lost).
    private static func reason(kind: String?, focus: String?) -> HeldNotification.Reason {
        switch kind {
        case "summary": .summary
        case "snooze": .snooze(until: focus.flatMap(TimeBounds.storedInstant) ?? TimeBounds.earliest)
        default: .focus(focus ?? "")
        }
    }

    /// Changes what holds held notification `id` (a snooze made longer, a snooze that ended under
    /// a Focus); it waits in no digest after.
    public func setHeldReason(_ id: UInt32, _ reason: HeldNotification.Reason) throws {
        let (kind, focus) = Self.stored(reason)
        try database.statement("UPDATE held SET kind = ?, focus = ?, digest = NULL WHERE id = ?")
            .execute([kind, focus, Int64(id)])
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
        try database.transaction {
            for hold in holds { try insertHeld(hold) }
            try insertHistory(history)
        }
    }

    /// Every held notification with the digest it went out in (nil: still waiting), oldest first.
    /// A row whose values cannot be used (wrong types, an ID out of range, a time that is not
    /// finite) is deleted and `notice` told once: it must not stop the bridge from starting.
    public func heldNotifications() throws -> [(item: HeldNotification, digest: UInt32?)] {
        // `id` is the rowid (INTEGER PRIMARY KEY): always an integer, whatever else the row holds.
        var unusable: [Int64] = []
        let items = try database.statement("""
            SELECT id, kind, focus, app, summary, body, level, relevance, received, sender, pid, digest, holders
            FROM held ORDER BY received, id
            """).rows { row -> (item: HeldNotification, digest: UInt32?)? in
            guard let id = row.int64(0).flatMap(UInt32.init(exactly:)), id != 0,
                  let received = row.double(8), received.isFinite,
                  let relevance = row.double(7), relevance.isFinite,
                  let sender = row.string(9) else {
                if let id = row.int64(0) { unusable.append(id) }
                return nil
            }
            let reason = Self.reason(kind: row.string(1), focus: row.string(2))
            let item = HeldNotification(
                id: id, reason: reason, app: row.string(3) ?? "",
                summary: row.string(4) ?? "", body: row.string(5) ?? "",
                level: row.string(6).flatMap(InterruptionLevel.init(rawValue:)) ?? .active,
                relevance: relevance, received: Instant(timeIntervalSince1970: received),
                holders: Self.holders(stored: row.string(12), sender: sender),
                processID: row.int64(10).flatMap(UInt32.init(exactly:)))
            return (item, row.int64(11).flatMap(UInt32.init(exactly:)))
        }
        if !unusable.isEmpty {
            notice("\(Count.of(unusable.count, "held notification")) in the state database cannot be read; discarded")
            try database.transaction {
                let delete = try database.statement("DELETE FROM held WHERE id = ?")
                for id in unusable { try delete.execute([id]) }
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
        try database.statement("SELECT payload_type, payload FROM held WHERE id = ?").firstRow([Int64(id)]) { row in
            guard let type = row.string(0), let bytes = row.blob(1) else { return nil }
            return (type, bytes)
        }
    }

    public func removeHeld(_ ids: [UInt32]) throws {
        guard !ids.isEmpty else { return }
        try database.transaction {
            let delete = try database.statement("DELETE FROM held WHERE id = ?")
            for id in ids { try delete.execute([Int64(id)]) }
        }
    }

    /// Notes that these held notifications went out in digest `digest` (they wait for its
    /// Show All or Dismiss).
    public func assignDigest(_ ids: [UInt32], digest: UInt32?) throws {
        try database.transaction {
            let update = try database.statement("UPDATE held SET digest = ? WHERE id = ?")
            for id in ids { try update.execute([digest.map { Int64($0) }, Int64(id)]) }
        }
    }

    // MARK: History size

    /// The bound on the history's size (`history-max-mb`); nil: none. A new bound is looked at
    /// with the next `trimHistory`, without waiting for rows to be written.
    public var historySize: HistorySize? {
        didSet {
            guard historySize != oldValue else { return }
            sizeCheckForced = historySize != nil
            // The WAL file keeps the size of its largest burst unless told to give it back
            // after a checkpoint (-1: never; the default). It is checkpointed every 1000 pages
            // (SQLite's default), or sooner where that would not leave it within its room.
            let walLimit = historySize?.walLimit ?? -1
            let pageSize = (try? database.statement("PRAGMA page_size").firstRow { $0.int(0) }) ?? nil
            let pages = historySize.map { min(1000, max(16, $0.walLimit / 2 / max(pageSize ?? 4096, 512))) } ?? 1000
            try? database.execute("PRAGMA journal_size_limit = \(walLimit); PRAGMA wal_autocheckpoint = \(pages)")
        }
    }
    /// History rows written since the size was last looked at.
    private var rowsSinceSizeCheck = 0
    /// The next look is due whatever was written (a new bound, or a pass that left it over).
    private var sizeCheckForced = false

    /// Whether `trimHistory` has something to look at: enough rows were written since the last
    /// look (`HistorySize.checkEveryRows`), or the last pass left the history over its bound.
    public var isHistoryTrimDue: Bool {
        guard let historySize else { return false }
        return sizeCheckForced || rowsSinceSizeCheck >= historySize.checkEveryRows
    }

    /// What one `trimHistory` pass did.
    public struct HistoryTrim: Equatable, Sendable {
        /// Rows forgotten.
        public var forgotten: Int
        /// Whether the history is within its bound now, or has nothing left to forget.
        public var isWithin: Bool

        public init(forgotten: Int, isWithin: Bool) {
            self.forgotten = forgotten
            self.isWithin = isWithin
        }
    }

    /// The database's bytes on disk: its file (every page, free ones too), the pages in use, and the WAL file.
    public struct DiskUse: Equatable, Sendable {
        public var fileBytes: Int
        public var usedBytes: Int
        public var walBytes: Int
        public var freeBytes: Int { fileBytes - usedBytes }
    }

    /// Read from the file's header (no page is read): cheap enough for every look.
    public func diskUse() throws -> DiskUse {
        let pageSize = try database.statement("PRAGMA page_size").firstRow { $0.int(0) } ?? 0
        let pages = try database.statement("PRAGMA page_count").firstRow { $0.int(0) } ?? 0
        let free = try database.statement("PRAGMA freelist_count").firstRow { $0.int(0) } ?? 0
        return DiskUse(fileBytes: pages * pageSize, usedBytes: (pages - free) * pageSize,
                       walBytes: FileStatus.size(path + "-wal") ?? 0)
    }

    /// One bounded pass over the history's size: when the pages in use are over
    /// `HistorySize.trimAbove`, forgets the oldest `batchRows` rows (more after a burst of
    /// writes, at most four batches) in one transaction, held
    /// notifications' rows never (they stay as long as they are held). A pass that leaves the
    /// history over its bound makes the next look due at once: the caller runs passes until
    /// `isWithin`, letting other work in between.
    @discardableResult
    public func trimHistory() throws -> HistoryTrim {
        let written = rowsSinceSizeCheck
        rowsSinceSizeCheck = 0
        sizeCheckForced = false
        guard let historySize, try diskUse().usedBytes > historySize.trimAbove else {
            return HistoryTrim(forgotten: 0, isWithin: true)
        }
        // A batch, and as many again as were written since the last pass: a flood that leaves
        // the loop never idle is outrun by the passes its commits bring.
        let rows = min(historySize.batchRows + written, 4 * historySize.batchRows)
        // The freed pages are not zeroed first (`secure_delete = FAST`): builds that zero them
        // all (Debian's) write each forgotten row twice, five times the pass's time. The rows
        // that follow reuse those pages (that is what keeps the file within the bound), and a
        // compaction rewrites the file; other deletions keep the build's setting.
        let secureDelete = try database.statement("PRAGMA secure_delete").firstRow { $0.int(0) } ?? 0
        try database.execute("PRAGMA secure_delete = FAST")
        defer { try? database.execute("PRAGMA secure_delete = \(secureDelete)") }
        // Oldest first by row (the rowid: received order), skipping what is held: the held
        // table's key is its ID, so each skip is one lookup.
        let forgotten = try database.transaction {
            try database.execute("""
                DELETE FROM history WHERE row IN (SELECT row FROM history
                    WHERE NOT EXISTS (SELECT 1 FROM held WHERE held.id = history.id) ORDER BY row LIMIT ?)
                """, [rows])
            return database.changes
        }
        let isWithin = try forgotten == 0 || diskUse().usedBytes <= historySize.trimAbove
        sizeCheckForced = !isWithin
        return HistoryTrim(forgotten: forgotten, isWithin: isWithin)
    }

    /// Gives back what a file far over its bound holds in free pages (`HistorySize.needsCompacting`):
    /// rewrites it (VACUUM, about as long as writing what is in use once more) and empties the
    /// WAL file the rewrite went through. For a quiet moment (start, the daily prune), never
    /// between notifications. True when it compacted.
    @discardableResult
    public func compactIfFarOver() throws -> Bool {
        guard let historySize else { return false }
        let use = try diskUse()
        guard historySize.needsCompacting(fileBytes: use.fileBytes, freeBytes: use.freeBytes) else { return false }
        try database.execute("VACUUM")
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return true
    }

    /// Forgets history received before `date`; returns how many rows went.
    @discardableResult
    public func pruneHistory(before date: Instant) throws -> Int {
        try database.transaction {
            try database.execute("DELETE FROM history WHERE received < ?", [date.timeIntervalSince1970])
            return database.changes
        }
    }
}
