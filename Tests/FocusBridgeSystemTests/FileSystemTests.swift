import FocusBridgeSystem
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The file calls against a real temporary folder: what they leave on disk, and the error each
/// failure gives (its errno, as the messages built on it show).
final class FileSystemTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        var template = Array("/tmp/focus-bridge-system-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        folder = String(cString: try XCTUnwrap(made))
    }

    override func tearDown() {
        _ = folder.withCString { path in
            system("rm -rf '\(String(cString: path))'")
        }
    }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0, path)
        return info.st_mode & 0o7777
    }

    private func write(_ text: String, _ path: String) throws {
        try AtomicFile.write(Array(text.utf8), to: path)
    }

    // MARK: Atomic writing

    func testAnAtomicWriteReplacesTheFileAndLeavesNoTemporaryFile() throws {
        let path = folder + "/device.json"
        try write("old", path)
        try write("new", path)
        XCTAssertEqual(FileReading.text(of: path), "new")
        XCTAssertEqual(try Folders.entries(of: folder), ["device.json"])
    }

    func testAFailedAtomicWriteLeavesTheOldFileAsItWas() throws {
        let path = folder + "/device.json"
        try write("old", path)
        // The temporary name is taken by a folder: the write cannot start.
        XCTAssertEqual(mkdir(AtomicFile.temporaryPath(for: path), 0o700), 0)
        XCTAssertThrowsError(try write("new", path)) { error in
            XCTAssertEqual(error as? SystemError, SystemError(code: EISDIR))
        }
        XCTAssertEqual(FileReading.text(of: path), "old")
    }

    func testAFailedRenameRemovesTheTemporaryFileAndKeepsWhatWasThere() throws {
        // A folder with something in it cannot be replaced by a file.
        let path = folder + "/taken"
        try Folders.create(path + "/inside", mode: 0o700)
        XCTAssertThrowsError(try write("new", path)) { error in
            XCTAssertEqual(error as? SystemError, SystemError(code: EISDIR))
        }
        XCTAssertTrue(FileStatus.isDirectory(path + "/inside"))
        XCTAssertFalse(FileStatus.exists(AtomicFile.temporaryPath(for: path)))
    }

    func testAnAtomicWriteGivesTheModeLessTheUmaskAndNeverFollowsALinkAtTheTemporaryName() throws {
        let previous = umask(0o077)
        defer { umask(previous) }
        let path = folder + "/private.conf"
        try AtomicFile.write(Array("x".utf8), to: path, mode: 0o644)
        XCTAssertEqual(mode(path), 0o600)
        let elsewhere = folder + "/elsewhere"
        try write("untouched", elsewhere)
        XCTAssertEqual(symlink(elsewhere, AtomicFile.temporaryPath(for: path)), 0)
        XCTAssertThrowsError(try write("new", path)) { error in
            XCTAssertEqual(error as? SystemError, SystemError(code: ELOOP))
        }
        XCTAssertEqual(FileReading.text(of: elsewhere), "untouched")
        XCTAssertEqual(FileReading.text(of: path), "x")
    }

    // MARK: Folders

    func testCreatingFoldersGivesEachNewOneExactlyTheModeWhateverTheUmask() throws {
        let previous = umask(0o022)
        defer { umask(previous) }
        let existing = folder + "/existing"
        XCTAssertEqual(mkdir(existing, 0o755), 0)
        try Folders.create(existing + "/a/b", mode: 0o700)
        XCTAssertEqual(mode(existing), 0o755, "a folder already there is left as it is")
        XCTAssertEqual(mode(existing + "/a"), 0o700)
        XCTAssertEqual(mode(existing + "/a/b"), 0o700)
        umask(0o077)
        try Folders.create(folder + "/wide/", mode: 0o755)
        XCTAssertEqual(mode(folder + "/wide"), 0o755, "the umask does not narrow the mode asked for")
        try Folders.create(existing + "/a/b", mode: 0o755)
        XCTAssertEqual(mode(existing + "/a/b"), 0o700, "creating what is there changes nothing")
    }

    func testAFileInTheWayOfAFolderIsAnError() throws {
        try write("x", folder + "/file")
        XCTAssertThrowsError(try Folders.create(folder + "/file", mode: 0o700)) { error in
            XCTAssertEqual((error as? SystemError)?.description, String(cString: strerror(EEXIST)))
        }
        XCTAssertThrowsError(try Folders.create(folder + "/file/below", mode: 0o700)) { error in
            XCTAssertEqual(error as? SystemError, SystemError(code: ENOTDIR), "as mkdir -p says")
        }
        XCTAssertEqual(FileReading.text(of: folder + "/file"), "x")
    }

    func testListingAFolderGivesItsNamesAndAMissingOneIsAnError() throws {
        try write("1", folder + "/one")
        try Folders.create(folder + "/two", mode: 0o700)
        XCTAssertEqual(try Folders.entries(of: folder).sorted(), ["one", "two"])
        XCTAssertEqual(try Folders.entries(of: folder, limit: 1).count, 1)
        XCTAssertThrowsError(try Folders.entries(of: folder + "/missing")) { error in
            XCTAssertTrue((error as? SystemError)?.isMissing == true, "\(error)")
        }
    }

    // MARK: Reading and looking

    func testAMissingFileIsAnErrorThatSaysSo() {
        XCTAssertThrowsError(try FileReading.contents(of: folder + "/missing")) { error in
            XCTAssertEqual(error as? SystemError, SystemError(code: ENOENT))
            XCTAssertEqual("\(error)", "No such file or directory")
        }
        XCTAssertNil(FileReading.text(of: folder + "/missing"))
        XCTAssertFalse(FileStatus.exists(folder + "/missing"))
        XCTAssertNil(FileStatus.size(folder + "/missing"))
    }

    func testReadingStopsAtTheLimitAndReadsProcFilesThatSayTheyAreEmpty() throws {
        let path = folder + "/big"
        try AtomicFile.write([UInt8](repeating: 65, count: 40_000), to: path)
        XCTAssertEqual(try FileReading.contents(of: path).count, 40_000)
        XCTAssertEqual(try FileReading.contents(of: path, limit: 20_001).count, 20_001)
        XCTAssertEqual(FileStatus.size(path), 40_000)
        XCTAssertEqual(FileStatus.size("/proc/self/cmdline"), 0)
        XCTAssertFalse(try FileReading.contents(of: "/proc/self/cmdline").isEmpty)
    }

    func testTextThatIsNotUTF8IsNotText() throws {
        let path = folder + "/latin1"
        try AtomicFile.write([0x63, 0x61, 0x66, 0xe9], to: path)
        XCTAssertNil(FileReading.text(of: path))
        XCTAssertEqual(try FileReading.contents(of: path), [0x63, 0x61, 0x66, 0xe9])
    }

    func testWhatAPathIs() throws {
        try write("#!/bin/sh\n", folder + "/tool")
        XCTAssertFalse(FileStatus.isExecutableFile(folder + "/tool"))
        try FileStatus.setMode(folder + "/tool", 0o755)
        XCTAssertTrue(FileStatus.isExecutableFile(folder + "/tool"))
        XCTAssertFalse(FileStatus.isExecutableFile(folder), "a folder is not an executable file")
        XCTAssertTrue(FileStatus.isDirectory(folder))
        XCTAssertFalse(FileStatus.isDirectory(folder + "/tool"))
        XCTAssertEqual(symlink("tool", folder + "/link"), 0)
        XCTAssertTrue(FileStatus.isSymbolicLink(folder + "/link"))
        XCTAssertFalse(FileStatus.isSymbolicLink(folder + "/tool"))
        XCTAssertEqual(try FileStatus.symbolicLinkDestination(folder + "/link"), "tool")
        XCTAssertThrowsError(try FileStatus.symbolicLinkDestination(folder + "/tool")) { error in
            XCTAssertEqual(error as? SystemError, SystemError(code: EINVAL))
        }
        // The longest destination Linux keeps (PATH_MAX less its NUL).
        let long = String(repeating: "d/", count: 2045) + "end00"
        XCTAssertEqual(long.utf8.count, Int(PATH_MAX) - 1)
        XCTAssertEqual(symlink(long, folder + "/long"), 0)
        XCTAssertEqual(try FileStatus.symbolicLinkDestination(folder + "/long"), long, "read whole")
        try FileStatus.remove(folder + "/link")
        XCTAssertFalse(FileStatus.isSymbolicLink(folder + "/link"))
        XCTAssertThrowsError(try FileStatus.remove(folder + "/link")) { error in
            XCTAssertEqual(error as? SystemError, SystemError(code: ENOENT))
        }
    }
}
