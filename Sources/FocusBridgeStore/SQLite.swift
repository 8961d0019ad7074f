import CSQLite

/// A failure reported by SQLite: the primary result code (SQLITE_BUSY, SQLITE_CORRUPT, …), the
/// extended one, SQLite's message when it gave one (none when the file could not be opened) and
/// the SQL it was running. Described in the form the store's log lines keep across releases:
/// "SQLite error 13: database or disk is full - while executing `INSERT …`".
public struct SQLiteError: Error, CustomStringConvertible, Equatable {
    /// The primary result code (the low byte of the extended one).
    public let code: Int32
    public let extendedCode: Int32
    public let message: String?
    public let sql: String?

    public init(code: Int32, message: String? = nil, sql: String? = nil) {
        self.extendedCode = code
        self.code = code & 0xff
        self.message = message
        self.sql = sql
    }

    public var description: String {
        var description = "SQLite error \(code)"
        if let message { description += ": \(message)" }
        if let sql {
            let trimmed = sql.drop { $0.isWhitespace || $0 == ";" }.reversed().drop { $0.isWhitespace || $0 == ";" }.reversed()
            description += " - while executing `\(String(trimmed))`"
        }
        return description
    }

    /// SQLite's words alone ("database is locked"), or the code when it gave none.
    public var reason: String { message ?? "SQLite error \(code)" }

    public var isBusyOrLocked: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// The file is damaged or not an SQLite database at all.
    public var isCorrupt: Bool { code == SQLITE_CORRUPT || code == SQLITE_NOTADB }
}

/// A value bound to a statement's parameter: integers, doubles, text, blobs; nil binds NULL.
public protocol SQLiteBindable {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32
}

extension Int64: SQLiteBindable {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_int64(statement, index, self) }
}

extension Int: SQLiteBindable {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_int64(statement, index, Int64(self)) }
}

extension Double: SQLiteBindable {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_double(statement, index, self) }
}

extension String: SQLiteBindable {
    /// As a C string, copied by SQLite (text ends at a NUL, as GRDB bound it).
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        withCString { sqlite3_bind_text(statement, index, $0, -1, csqlite_transient()) }
    }
}

extension Array: SQLiteBindable where Element == UInt8 {
    /// A blob, copied by SQLite; an empty array is an empty blob, not NULL.
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        if isEmpty { return sqlite3_bind_zeroblob(statement, index, 0) }
        return withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), csqlite_transient()) }
    }
}

/// The connection's handle, shared by the database and its statements: it is closed once the
/// database is closed or released and no statement of it is left (`sqlite3_close_v2`).
final class Connection {
    fileprivate(set) var handle: OpaquePointer?

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { close() }

    fileprivate func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// SQLite's error for `code`, with its message (none once closed) and the SQL run.
    fileprivate func error(_ code: Int32, sql: String? = nil) -> SQLiteError {
        SQLiteError(code: code, message: handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }, sql: sql)
    }
}

/// A prepared statement of one `SQLiteDatabase`, made once per SQL text and kept (see
/// `SQLiteDatabase.statement(_:)`). Columns read leniently: a value of another type than asked
/// is nil, never a trap — nothing read back from the file is trusted.
public final class Statement {
    fileprivate var handle: OpaquePointer?
    /// The same statement, valid until it is finalized (the typed binds, after `reset()`).
    private let prepared: OpaquePointer
    private let connection: Connection

    fileprivate init(_ handle: OpaquePointer, _ connection: Connection) {
        self.handle = handle
        prepared = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    fileprivate func finalize() {
        sqlite3_finalize(handle)
        handle = nil
    }

    /// The statement's SQL text, for errors.
    private var sql: String? { handle.flatMap { sqlite3_sql($0) }.map { String(cString: $0) } }

    /// The statement, when it and its database are still open.
    private func open() throws -> OpaquePointer {
        guard let handle, connection.handle != nil else {
            throw SQLiteError(code: SQLITE_MISUSE, message: "the statement or its database was closed")
        }
        return handle
    }

    /// Resets the statement and binds `values` to its parameters, in order; parameters past the
    /// values given are NULL (every parameter is bound each time: nothing of the last use stays).
    public func bind(_ values: [(any SQLiteBindable)?]) throws {
        let handle = try open()
        sqlite3_reset(handle)
        let parameters = Int(sqlite3_bind_parameter_count(handle))
        guard values.count <= parameters else {
            throw SQLiteError(code: SQLITE_RANGE, message: "\(values.count) values for \(parameters) parameters")
        }
        for offset in 0..<parameters {
            let index = Int32(offset + 1)
            let value = offset < values.count ? values[offset] : nil
            let code = value.map { $0.bind(to: handle, at: index) } ?? sqlite3_bind_null(handle, index)
            guard code == SQLITE_OK else { throw connection.error(code, sql: sql) }
        }
    }

    // Typed binding for the hot path (a history row per Notify): no array of existentials, no
    // boxed values. `reset()` first: it checks that the statement is still open, the binds that
    // follow use `prepared` without checking again (each check reads two class properties).
    // Internal: only the Store binds this way.

    /// Resets the statement and sets every parameter to NULL; throws when it or its database was closed.
    func reset() throws {
        let handle = try open()
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ value: Int64, at index: Int32) throws {
        try checkBind(sqlite3_bind_int64(prepared, index, value))
    }

    func bind(_ value: Double, at index: Int32) throws {
        try checkBind(sqlite3_bind_double(prepared, index, value))
    }

    /// Text as a C string, copied by SQLite (it ends at a NUL, as `String`'s binding does); nil
    /// leaves the parameter NULL.
    func bind(_ value: String?, at index: Int32) throws {
        guard let value else { return }
        try checkBind(value.withCString { sqlite3_bind_text(prepared, index, $0, -1, csqlite_transient()) })
    }

    /// Text bound in place (SQLITE_STATIC, up to its NUL as the other text binds): SQLite does
    /// not copy it, so it must stay valid until `clearBindings()`. Nil leaves the parameter NULL.
    func bind(inPlace text: UnsafePointer<CChar>?, at index: Int32) throws {
        guard let text else { return }
        try checkBind(sqlite3_bind_text(prepared, index, text, -1, nil))
    }

    /// UTF-8 text of `bytes.count` bytes bound in place, the same way.
    func bind(inPlace bytes: UnsafeBufferPointer<UInt8>, at index: Int32) throws {
        let start = UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
        try checkBind(sqlite3_bind_text(prepared, index, start, Int32(bytes.count), nil))
    }

    /// Sets every parameter to NULL (before text bound in place goes away).
    func clearBindings() {
        sqlite3_clear_bindings(prepared)
    }

    private func checkBind(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw connection.error(code, sql: sql) }
    }

    /// Runs the statement, bound, to its end.
    func run() throws {
        while try step() {}
    }

    /// The next row: true when there is one to read, false when done.
    public func step() throws -> Bool {
        let handle = try open()
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE:
            sqlite3_reset(handle)
            return false
        case let code:
            // The error is read before the reset, which would return the same code again.
            let error = connection.error(code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Binds `values` and runs the statement to its end.
    public func execute(_ values: [(any SQLiteBindable)?] = []) throws {
        try bind(values)
        while try step() {}
    }

    /// Binds `values` and reads every row with `read` (nil leaves the row out).
    public func rows<Row>(_ values: [(any SQLiteBindable)?] = [], _ read: (Statement) throws -> Row?) throws -> [Row] {
        try bind(values)
        var rows: [Row] = []
        defer { if let handle { sqlite3_reset(handle) } }
        while try step() {
            if let row = try read(self) { rows.append(row) }
        }
        return rows
    }

    /// The first row read with `read`, or nil when there is none.
    public func firstRow<Row>(_ values: [(any SQLiteBindable)?] = [], _ read: (Statement) throws -> Row?) throws -> Row? {
        try bind(values)
        defer { if let handle { sqlite3_reset(handle) } }
        return try step() ? read(self) : nil
    }

    private func type(_ column: Int32) -> Int32 { sqlite3_column_type(handle, column) }

    /// True when the column holds NULL.
    public func isNull(_ column: Int32) -> Bool { type(column) == SQLITE_NULL }

    /// An integer, or a real within Int64's range (truncated); else nil.
    public func int64(_ column: Int32) -> Int64? {
        switch type(column) {
        case SQLITE_INTEGER: return sqlite3_column_int64(handle, column)
        case SQLITE_FLOAT:
            let value = sqlite3_column_double(handle, column)
            guard value >= Double(Int64.min), value < Double(Int64.max) else { return nil }
            return Int64(value)
        default: return nil
        }
    }

    public func int(_ column: Int32) -> Int? { int64(column).flatMap { Int(exactly: $0) } }

    /// A real or an integer; else nil.
    public func double(_ column: Int32) -> Double? {
        switch type(column) {
        case SQLITE_FLOAT: return sqlite3_column_double(handle, column)
        case SQLITE_INTEGER: return Double(sqlite3_column_int64(handle, column))
        default: return nil
        }
    }

    /// Text (up to a NUL, invalid UTF-8 repaired), or a blob that is valid UTF-8; else nil.
    public func string(_ column: Int32) -> String? {
        switch type(column) {
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(handle, column) else { return "" }
            return String(cString: text)
        case SQLITE_BLOB:
            return String(validating: blob(column) ?? [], as: UTF8.self)
        default: return nil
        }
    }

    /// A blob, or text as its UTF-8 bytes; else nil.
    public func blob(_ column: Int32) -> [UInt8]? {
        switch type(column) {
        case SQLITE_BLOB, SQLITE_TEXT:
            let isText = type(column) == SQLITE_TEXT
            let pointer = isText ? sqlite3_column_text(handle, column).map(UnsafeRawPointer.init)
                                 : sqlite3_column_blob(handle, column)
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let pointer, count > 0 else { return [] }
            return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
        default: return nil
        }
    }
}

/// One connection to an SQLite file through SQLite's C API, used from one thread (the bridge's
/// main loop): statements prepared once and cached by their SQL text, `transaction` for
/// BEGIN IMMEDIATE … COMMIT (ROLLBACK when the body throws).
public final class SQLiteDatabase {
    private let connection: Connection
    private var handle: OpaquePointer? { connection.handle }
    private var statements: [String: Statement] = [:]

    /// Read and write, created when missing, one thread at a time, extended result codes.
    public static let defaultFlags: Int32 = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
    /// File names given as `file:` URIs are read as such (`mode=memory`, `cache=shared`), also in ATTACH.
    public static let uriFlag: Int32 = SQLITE_OPEN_URI

    /// Opens `path`; `busyTimeout` is how long a statement waits for another connection's lock.
    /// The file is read once (sqlite_master), so one that is not a database fails here.
    public init(path: String, flags: Int32 = SQLiteDatabase.defaultFlags, busyTimeout milliseconds: Int32 = 5000) throws {
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            sqlite3_close(connection)
            throw SQLiteError(code: code)
        }
        self.connection = Connection(connection)
        sqlite3_busy_timeout(connection, milliseconds)
        do {
            _ = try strings("SELECT name FROM sqlite_master LIMIT 1", cached: false)
        } catch {
            close()
            throw error
        }
    }

    /// Finalizes every cached statement and closes the connection (done anyway once the
    /// database and every statement of it are released). A statement used after is refused.
    public func close() {
        for statement in statements.values { statement.finalize() }
        statements = [:]
        connection.close()
    }

    private func error(_ code: Int32, sql: String? = nil) -> SQLiteError { connection.error(code, sql: sql) }

    private func openHandle() throws -> OpaquePointer {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "the database is closed") }
        return handle
    }

    /// The statement for `sql`, prepared on first use and kept for the connection's life.
    public func statement(_ sql: String) throws -> Statement {
        if let statement = statements[sql] { return statement }
        let statement = try prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// A statement for `sql` that is not cached (finalized when released): for SQL run once.
    private func prepare(_ sql: String) throws -> Statement {
        let handle = try openHandle()
        var prepared: OpaquePointer?
        let code = sqlite3_prepare_v2(handle, sql, -1, &prepared, nil)
        guard code == SQLITE_OK else {
            sqlite3_finalize(prepared)
            throw error(code, sql: sql)
        }
        guard let prepared else { throw SQLiteError(code: SQLITE_MISUSE, message: "no statement in: \(sql.prefix(80))") }
        return Statement(prepared, connection)
    }

    /// Runs one or more statements of SQL text, without arguments (schema changes, pragmas).
    public func execute(_ sql: String) throws {
        let handle = try openHandle()
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) }
            sqlite3_free(message)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: text ?? error(code).message, sql: sql)
        }
    }

    /// Runs one cached statement with `values`.
    public func execute(_ sql: String, _ values: [(any SQLiteBindable)?]) throws {
        try statement(sql).execute(values)
    }

    /// The first column of every row of `sql`, as text (rows that are not text are left out).
    public func strings(_ sql: String, _ values: [(any SQLiteBindable)?] = [], cached: Bool = true) throws -> [String] {
        let statement = cached ? try statement(sql) : try prepare(sql)
        defer { if !cached { statement.finalize() } }
        return try statement.rows(values) { $0.string(0) }
    }

    /// Gives the page cache back to the heap: every page not in use is freed (read again from the
    /// file, or the system's cache of it, when needed). The cache otherwise keeps up to its size
    /// (2 MB by default) once a burst of writes filled it, between the burst's freed memory.
    public func releaseMemory() {
        if let handle { sqlite3_db_release_memory(handle) }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }

    public var isInTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    /// Runs `body` in one transaction: BEGIN IMMEDIATE, COMMIT, or ROLLBACK when it throws (the
    /// error is then rethrown).
    public func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try statement("BEGIN IMMEDIATE").execute()
        let result: Result
        do {
            result = try body()
            try statement("COMMIT").execute()
        } catch {
            // A failed COMMIT may leave the transaction open (SQLITE_BUSY); an error that SQLite
            // already rolled back leaves none.
            if isInTransaction { try? statement("ROLLBACK").execute() }
            throw error
        }
        return result
    }
}
