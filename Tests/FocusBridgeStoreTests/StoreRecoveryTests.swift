import FocusBridgeCore
import FocusBridgeStore
import FocusBridgeTime
import Foundation
import XCTest

/// What the store does with a file it cannot trust: a broken file is moved
/// aside, a symbolic link refused, unusable rows and values discarded with a notice, never a trap.
final class StoreRecoveryTests: XCTestCase {
    private var directory: String!
    private var path: String { directory + "/state.sqlite3" }

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "focus-bridge-recovery-\(UUID().uuidString)/state"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
    }

    func testRandomBytesAreMovedAside() throws {
        var bytes = [UInt8](repeating: 0, count: 40_000)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        var notices: [String] = []
        let store = try Store(directory: directory, notice: { notices.append($0) })
        try store.setIDHighWater(7)
        XCTAssertEqual(try store.idHighWater(), 7)
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".broken-") }.sorted()
        XCTAssertEqual(aside.count, 1, "\(aside)")
        guard let first = aside.first else { return }
        XCTAssertTrue(first.hasPrefix("state.sqlite3.broken-"))
        // state.sqlite3.broken-YYYYMMDD-HHMMSS, the local time of the move
        let stamp = Array(first.dropFirst("state.sqlite3.broken-".count).utf8)
        XCTAssertEqual(stamp.count, 15, first)
        XCTAssertTrue(stamp.enumerated().allSatisfy { $0.offset == 8 ? $0.element == UInt8(ascii: "-") : (48...57).contains($0.element) }, first)
        XCTAssertTrue(first.dropFirst("state.sqlite3.broken-".count).hasPrefix("20"), first)
        XCTAssertEqual(FileManager.default.contents(atPath: directory + "/" + first), Data(bytes))
        XCTAssertEqual(notices.count, 1)
        XCTAssertTrue(notices.first.map { $0.contains(path) && $0.contains(first) } ?? false, "\(notices)")
    }

    func testASymbolicLinkIsRefused() throws {
        let other = directory + "/../elsewhere.sqlite3"
        _ = FileManager.default.createFile(atPath: other, contents: nil)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: other)
        XCTAssertThrowsError(try Store(directory: directory)) { error in
            XCTAssertTrue("\(error)".contains("symbolic link"), "\(error)")
        }
    }

    /// A file where the state folder should be is named with the system's words, one sentence.
    func testAFileWhereTheFolderShouldBeIsRefusedWithTheReason() throws {
        let file = directory + "/../in-the-way"
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: nil))
        XCTAssertThrowsError(try StateFolder(path: file)) { error in
            XCTAssertEqual("\(error)", "cannot create the state folder \(file): File exists; "
                + "give a writable one with --state-dir or XDG_STATE_HOME")
        }
        XCTAssertThrowsError(try StateFolder(path: file + "/state")) { error in
            XCTAssertEqual("\(error)", "cannot create the state folder \(file)/state: Not a directory; "
                + "give a writable one with --state-dir or XDG_STATE_HOME")
        }
        XCTAssertThrowsError(try Store(directory: file)) { error in
            XCTAssertEqual("\(error)", "cannot use the state folder \(file): File exists")
        }
        let folder = try StateFolder(path: directory + "/../claimed/a")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path + "/" + StateFolder.lockName))
    }

    func testUnusableStoredValuesAreDiscarded() throws {
        var notices: [String] = []
        do {
            let store = try Store(directory: directory)
            try store.record([HistoryEntry(id: 5000, app: "A", summary: "s", body: "", level: .active, decision: .delivered,
                                           received: Instant(timeIntervalSince1970: 1_800_000_000))])
            try store.setSetting(.idHighWater, "garbage")
        }
        let raw = try SQLiteDatabase(path: path)
        do {
            try raw.execute("""
                INSERT INTO held (id, kind, app, summary, body, level, relevance, received, sender, payload_type, payload)
                VALUES (-3, 'summary', 'A', 's', 'b', 'active', 0.5, 'not a time', ':1.1', 'x', x'00');
                INSERT INTO history (id, app, summary, body, level, decision, received)
                VALUES (-1, 'A', 's', '', 'active', 'delivered', 1);
                INSERT INTO history (id, app, summary, body, level, decision, received)
                VALUES (6, 'A', 's', '', 'active', 'delivered', 'soon');
                """)
        }
        raw.close()
        let store = try Store(directory: directory, notice: { notices.append($0) })
        XCTAssertGreaterThan(try store.idHighWater(), 5000, "IDs continue past every ID in the file")
        XCTAssertEqual(try store.heldNotifications().count, 0)
        XCTAssertEqual(try store.history(limit: 10).map(\.id), [5000])
        XCTAssertEqual(notices.count, 2, "\(notices)")
        XCTAssertEqual(try store.heldNotifications().count, 0)
        XCTAssertEqual(notices.count, 2, "the unusable held row was deleted: said once")
    }
}
