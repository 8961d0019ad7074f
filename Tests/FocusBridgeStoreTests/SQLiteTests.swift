@testable import FocusBridgeStore
import Foundation
import XCTest

/// The wrapper over SQLite's C API (SQLite.swift): what it reads back from a file is never
/// trusted, a transaction is all or nothing, and errors carry SQLite's code and words.
final class SQLiteTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "focus-bridge-sqlite-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Every column read as every type: a value of another type is nil, never a trap.
    func testColumnsOfTheWrongTypeReadAsNil() throws {
        let database = try SQLiteDatabase(path: folder + "/lenient.sqlite3")
        try database.execute("CREATE TABLE t (v)")
        try database.execute("""
            INSERT INTO t VALUES (42), (2.5), ('text'), (x'00ff'), (NULL), (1e300), (x'68c3a9'), ('');
            """)
        let statement = try database.statement("SELECT v FROM t ORDER BY rowid")
        let rows = try statement.rows { row in
            (row.int64(0), row.double(0), row.string(0), row.blob(0), row.isNull(0))
        }
        XCTAssertEqual(rows.count, 8)
        XCTAssertEqual(rows[0].0, 42); XCTAssertEqual(rows[0].1, 42); XCTAssertNil(rows[0].2); XCTAssertNil(rows[0].3)
        XCTAssertEqual(rows[1].0, 2, "a real reads as an integer, truncated"); XCTAssertEqual(rows[1].1, 2.5); XCTAssertNil(rows[1].2)
        XCTAssertNil(rows[2].0); XCTAssertNil(rows[2].1); XCTAssertEqual(rows[2].2, "text"); XCTAssertEqual(rows[2].3, Array("text".utf8))
        XCTAssertNil(rows[3].0); XCTAssertNil(rows[3].1); XCTAssertNil(rows[3].2, "a blob that is not UTF-8 is no string")
        XCTAssertEqual(rows[3].3, [0x00, 0xff])
        XCTAssertNil(rows[4].0); XCTAssertNil(rows[4].1); XCTAssertNil(rows[4].2); XCTAssertNil(rows[4].3); XCTAssertTrue(rows[4].4)
        XCTAssertNil(rows[5].0, "a real beyond Int64 is no integer"); XCTAssertEqual(rows[5].1, 1e300)
        XCTAssertEqual(rows[6].2, "hé", "a blob that is UTF-8 reads as text")
        XCTAssertEqual(rows[7].2, ""); XCTAssertEqual(rows[7].3, [])
        XCTAssertEqual(try database.statement("SELECT v FROM t WHERE rowid = 1").firstRow { $0.int(0) }, 42)
        XCTAssertNil(try database.statement("SELECT v FROM t WHERE rowid = 99").firstRow { $0.int(0) }, "no row")
    }

    func testBoundValuesComeBackAsBound() throws {
        let database = try SQLiteDatabase(path: folder + "/bind.sqlite3")
        try database.execute("CREATE TABLE t (i, d, s, b, n)")
        try database.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [Int64.min, -0.5, "ünïcode", [UInt8]([1, 2, 3]), nil])
        try database.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [7, 0.0, "", [UInt8](), nil])
        let rows = try database.statement("SELECT i, d, s, b, typeof(n), typeof(b) FROM t ORDER BY rowid").rows { row in
            (row.int64(0), row.double(1), row.string(2), row.blob(3), row.string(4), row.string(5))
        }
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows[0].0, Int64.min); XCTAssertEqual(rows[0].1, -0.5); XCTAssertEqual(rows[0].2, "ünïcode")
        XCTAssertEqual(rows[0].3, [1, 2, 3]); XCTAssertEqual(rows[0].4, "null")
        XCTAssertEqual(rows[1].0, 7); XCTAssertEqual(rows[1].2, ""); XCTAssertEqual(rows[1].3, [])
        XCTAssertEqual(rows[1].5, "blob", "an empty array is an empty blob, not NULL")
        // Parameters not given are NULL, not what the last use bound; too many values are refused.
        try database.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [8])
        XCTAssertEqual(try database.statement("SELECT typeof(d) || typeof(s) FROM t WHERE i = 8").firstRow { $0.string(0) },
                       "nullnull")
        XCTAssertThrowsError(try database.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [1, 2, 3, 4, 5, 6])) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 25 /* SQLITE_RANGE */)
        }
    }

    func testAStatementIsPreparedOnceForItsText() throws {
        let database = try SQLiteDatabase(path: folder + "/cache.sqlite3")
        let first = try database.statement("SELECT 1")
        XCTAssertTrue(first === (try database.statement("SELECT 1")))
        XCTAssertFalse(first === (try database.statement("SELECT 2")))
        // A statement left in the middle of its rows starts again at its next use.
        try database.execute("CREATE TABLE t (v); INSERT INTO t VALUES (1), (2), (3)")
        let select = try database.statement("SELECT v FROM t ORDER BY v")
        XCTAssertEqual(try select.firstRow { $0.int(0) }, 1)
        XCTAssertEqual(try select.rows { $0.int(0) }, [1, 2, 3])
    }

    func testATransactionThatThrowsWritesNothing() throws {
        struct Refused: Error {}
        let database = try SQLiteDatabase(path: folder + "/transaction.sqlite3")
        try database.execute("CREATE TABLE t (v NOT NULL)")
        XCTAssertThrowsError(try database.transaction {
            try database.execute("INSERT INTO t VALUES (?)", [1])
            throw Refused()
        }) { XCTAssertTrue($0 is Refused, "\($0)") }
        XCTAssertFalse(database.isInTransaction)
        XCTAssertThrowsError(try database.transaction {
            try database.execute("INSERT INTO t VALUES (?)", [2])
            try database.execute("INSERT INTO t VALUES (?)", [nil])
        }) { error in
            let error = error as? SQLiteError
            XCTAssertEqual(error?.code, 19 /* SQLITE_CONSTRAINT */)
            XCTAssertEqual(error?.message, "NOT NULL constraint failed: t.v")
            XCTAssertEqual(error?.description, "SQLite error 19: NOT NULL constraint failed: t.v - while executing `INSERT INTO t VALUES (?)`")
        }
        XCTAssertFalse(database.isInTransaction)
        XCTAssertEqual(try database.strings("SELECT count(*) FROM t"), [], "count(*) is an integer, not text")
        XCTAssertEqual(try database.statement("SELECT count(*) FROM t").firstRow { $0.int(0) }, 0)
        try database.transaction { try database.execute("INSERT INTO t VALUES (?)", [3]) }
        XCTAssertEqual(try database.statement("SELECT v FROM t").rows { $0.int(0) }, [3])
        XCTAssertEqual(try database.transaction { 5 }, 5)
    }

    func testErrorsCarrySQLitesCodeAndWords() throws {
        let path = folder + "/not-a-database"
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x41, count: 4096))
        XCTAssertThrowsError(try SQLiteDatabase(path: path)) { error in
            let error = error as? SQLiteError
            XCTAssertEqual(error?.code, 26 /* SQLITE_NOTADB */)
            XCTAssertEqual(error?.isCorrupt, true)
            XCTAssertEqual(error?.reason, "file is not a database")
            XCTAssertEqual(error?.description, "SQLite error 26: file is not a database - while executing `SELECT name FROM sqlite_master LIMIT 1`")
        }
        XCTAssertThrowsError(try SQLiteDatabase(path: folder + "/no/such/folder/db")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 14 /* SQLITE_CANTOPEN */)
            XCTAssertEqual("\(error)", "SQLite error 14", "as the store said it before")
        }
        let database = try SQLiteDatabase(path: folder + "/errors.sqlite3")
        XCTAssertThrowsError(try database.statement("SELEC 1")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, 1)
            XCTAssertEqual((error as? SQLiteError)?.message, #"near "SELEC": syntax error"#)
            XCTAssertEqual("\(error)", #"SQLite error 1: near "SELEC": syntax error - while executing `SELEC 1`"#)
        }
        database.close()
        XCTAssertThrowsError(try database.statement("SELECT 1"), "a closed database is refused, not crashed on")
    }

    /// A file another program holds locked: the store's sentence says so (and names the file).
    func testALockedFileIsSaidToBeLocked() throws {
        let path = folder + "/locked.sqlite3"
        let holder = try SQLiteDatabase(path: path)
        try holder.execute("CREATE TABLE t (v); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)")
        XCTAssertThrowsError(try SQLiteDatabase(path: path, busyTimeout: 0)) { error in
            XCTAssertEqual((error as? SQLiteError)?.isBusyOrLocked, true, "\(error)")
            XCTAssertEqual(StoreError(opening: path, error).description,
                           "the state database \(path) is locked by another program (database is locked); close it and start again")
        }
        try holder.execute("COMMIT")
        XCTAssertNoThrow(try SQLiteDatabase(path: path, busyTimeout: 0))
    }
}
