import FocusBridgeLoop
import FocusBridgeTestSupport
import Foundation
import XCTest

/// The inotify watches the bridge reloads its configuration and reads the share folder by: a file
/// saved in place or renamed over (as editors and sync engines do) is seen, another file in its
/// folder is not; a folder's entries are named, a rename by its new name.
final class FolderWatchTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "focus-bridge-loop-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: folder)
    }

    private func write(_ name: String, _ text: String) throws {
        try text.write(toFile: folder + "/" + name, atomically: false, encoding: .utf8)
    }

    func testAFileIsSeenWrittenAndRenamedOverButNotItsNeighbours() throws {
        var changes = 0
        var entries: [String?] = []
        let file = try XCTUnwrap(FileMonitor(path: folder + "/config.toml") { changes += 1 })
        // The folder's own watch is the witness: once it has seen an entry, so would the file's.
        let witness = try XCTUnwrap(DirectoryMonitor(path: folder) { entries.append($0) })
        _ = (file, witness)

        try write("other.toml", "x = 1\n")
        waitOnMainLoop(until: { entries.contains("other.toml") }, seconds: 5)
        XCTAssertEqual(changes, 0, "another file in the folder")

        try write("config.toml", "a = 1\n")
        waitOnMainLoop(until: { changes > 0 }, seconds: 5, "written in place")

        changes = 0
        try write("config.toml.new", "a = 2\n")
        XCTAssertEqual(rename(folder + "/config.toml.new", folder + "/config.toml"), 0)
        waitOnMainLoop(until: { changes > 0 }, seconds: 5, "renamed over")

        changes = 0
        XCTAssertEqual(unlink(folder + "/config.toml"), 0)
        waitOnMainLoop(until: { changes > 0 }, seconds: 5, "removed")
    }

    func testAFolderNamesItsEntriesARenameByItsNewName() throws {
        var entries: [String?] = []
        let watch = try XCTUnwrap(DirectoryMonitor(path: folder) { entries.append($0) })
        _ = watch
        try write(".laptop.json.tmp", "{}")
        waitOnMainLoop(until: { entries.contains(".laptop.json.tmp") }, seconds: 5)
        entries = []
        XCTAssertEqual(rename(folder + "/.laptop.json.tmp", folder + "/laptop.json"), 0)
        waitOnMainLoop(until: { !entries.isEmpty }, seconds: 5)
        XCTAssertEqual(entries, ["laptop.json"], "one event, the new name")
        entries = []
        XCTAssertEqual(unlink(folder + "/laptop.json"), 0)
        waitOnMainLoop(until: { entries.contains("laptop.json") }, seconds: 5, "removed")
    }

    func testTheFolderGoingAwayIsSaidWithoutAName() throws {
        var entries: [String?] = []
        let watch = try XCTUnwrap(DirectoryMonitor(path: folder) { entries.append($0) })
        _ = watch
        try FileManager.default.removeItem(atPath: folder)
        waitOnMainLoop(until: { entries.contains(where: { $0 == nil }) }, seconds: 5)
    }

    func testNothingIsWatchedWhereThereIsNoFolder() {
        XCTAssertNil(FileMonitor(path: folder + "/missing/config.toml") {})
        XCTAssertNil(DirectoryMonitor(path: folder + "/missing") { _ in })
        XCTAssertNil(FileMonitor(path: "config.toml") {}, "no folder in the path")
    }
}
