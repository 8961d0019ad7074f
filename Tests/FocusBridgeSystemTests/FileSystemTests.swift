import FocusBridgeSystem
import Foundation
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
        try write("new", path)
        XCTAssertEqual(FileReading.text(of: elsewhere), "untouched", "the link is removed, not written through")
        XCTAssertEqual(FileReading.text(of: path), "new")
        XCTAssertFalse(FileStatus.isSymbolicLink(path))
        XCTAssertEqual(try Folders.entries(of: folder).sorted(), ["elsewhere", "private.conf"])
    }

    func testAFIFOOrAFileLeftAtTheTemporaryNameIsReplacedNeverOpened() throws {
        let path = folder + "/device.json"
        let temporary = AtomicFile.temporaryPath(for: path)
        XCTAssertEqual(mkfifo(temporary, 0o600), 0)
        // Opening the FIFO for writing would wait for a reader for good.
        try withinSeconds(10, unblocking: temporary) { try AtomicFile.write(Array("after the FIFO".utf8), to: path) }
        XCTAssertEqual(FileReading.text(of: path), "after the FIFO")
        XCTAssertFalse(FileStatus.exists(temporary))
        try write(String(repeating: "left by a crash ", count: 100), temporary)
        try write("short", path)
        XCTAssertEqual(FileReading.text(of: path), "short", "nothing of the file left there remains")
        XCTAssertEqual(try Folders.entries(of: folder), ["device.json"])
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

    // MARK: Reading regular files only

    /// Runs `body` on a thread of its own and fails when it has not returned within `seconds`;
    /// a FIFO at `fifo` is then opened for writing and closed, so that a reader or writer stuck
    /// on it returns and the suite goes on.
    private func withinSeconds(_ seconds: Double, unblocking fifo: String,
                               _ body: @escaping @Sendable () throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let outcome = Outcome()
        Thread.detachNewThread {
            do { try body() } catch { outcome.error = error }
            done.signal()
        }
        if done.wait(timeout: .now() + seconds) == .timedOut {
            let descriptor = open(fifo, O_RDWR | O_NONBLOCK)
            if descriptor >= 0 { close(descriptor) }
            _ = done.wait(timeout: .now() + seconds)
            XCTFail("blocked on the FIFO \(fifo) for \(seconds) s")
        }
        if let error = outcome.error { throw error }
    }

    private final class Outcome: @unchecked Sendable {
        var error: Error?
    }

    func testARegularFileIsReadWholeUpToTheLimitAndALongerOneIsRefused() throws {
        let path = folder + "/file"
        try AtomicFile.write([UInt8](repeating: 65, count: 40_000), to: path)
        XCTAssertEqual(try FileReading.readRegularFile(path, limit: 40_000).count, 40_000)
        XCTAssertThrowsError(try FileReading.readRegularFile(path, limit: 39_999)) { error in
            XCTAssertEqual(error as? FileReadingError, .tooLarge(limit: 39_999))
            XCTAssertEqual("\(error)", "larger than 39999 bytes")
        }
        try AtomicFile.write([], to: folder + "/empty")
        XCTAssertEqual(try FileReading.readRegularFile(folder + "/empty", limit: 0), [])
    }

    func testProcFilesThatSayTheyAreEmptyAreReadToTheirEnd() throws {
        let cgroup = try FileReading.readRegularFile("/proc/self/cgroup", limit: 64 * 1024)
        XCTAssertFalse(cgroup.isEmpty)
        XCTAssertThrowsError(try FileReading.readRegularFile("/proc/self/cgroup", limit: 1)) { error in
            XCTAssertEqual(error as? FileReadingError, .tooLarge(limit: 1))
        }
    }

    func testAHugeSparseFileIsRefusedUnread() throws {
        let path = folder + "/sparse"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        XCTAssertEqual(ftruncate(descriptor, 1 << 30), 0)
        close(descriptor)
        XCTAssertThrowsError(try FileReading.readRegularFile(path, limit: 64 * 1024)) { error in
            XCTAssertEqual(error as? FileReadingError, .tooLarge(limit: 64 * 1024))
        }
        XCTAssertEqual(try FileReading.contents(of: path, limit: 10).count, 10, "contents(of:limit:) cuts instead")
    }

    func testAFIFOIsRefusedAtOnceByEveryReader() throws {
        let fifo = folder + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        try withinSeconds(10, unblocking: fifo) {
            XCTAssertThrowsError(try FileReading.readRegularFile(fifo, limit: 1024)) { error in
                XCTAssertEqual(error as? FileReadingError, .notRegularFile)
                XCTAssertEqual("\(error)", "not a regular file")
            }
            XCTAssertThrowsError(try FileReading.contents(of: fifo))
            XCTAssertNil(FileReading.text(of: fifo))
        }
        XCTAssertThrowsError(try FileReading.readRegularFile(folder, limit: 1024)) { error in
            XCTAssertEqual(error as? FileReadingError, .notRegularFile, "nor is a folder")
        }
        XCTAssertThrowsError(try FileReading.readRegularFile("/dev/null", limit: 1024)) { error in
            XCTAssertEqual(error as? FileReadingError, .notRegularFile, "nor is a device")
        }
        XCTAssertThrowsError(try FileReading.readRegularFile(folder + "/missing", limit: 1024)) { error in
            XCTAssertTrue((error as? FileReadingError)?.isMissing == true, "\(error)")
        }
    }

    func testALinkIsFollowedToARegularFileOnlyAndNotAtAllWhenSoAsked() throws {
        try write("target", folder + "/target")
        XCTAssertEqual(symlink(folder + "/target", folder + "/link"), 0)
        XCTAssertEqual(try FileReading.readRegularFile(folder + "/link", limit: 100), Array("target".utf8))
        XCTAssertThrowsError(try FileReading.readRegularFile(folder + "/link", limit: 100, followLinks: false)) { error in
            XCTAssertEqual(error as? FileReadingError, .system(SystemError(code: ELOOP)))
        }
        XCTAssertEqual(try FileReading.readRegularFile(folder + "/target", limit: 100, followLinks: false),
                       Array("target".utf8))
        XCTAssertEqual(mkfifo(folder + "/fifo", 0o600), 0)
        XCTAssertEqual(symlink(folder + "/fifo", folder + "/to-fifo"), 0)
        let link = folder + "/to-fifo"
        try withinSeconds(10, unblocking: folder + "/fifo") {
            XCTAssertThrowsError(try FileReading.readRegularFile(link, limit: 100)) { error in
                XCTAssertEqual(error as? FileReadingError, .notRegularFile)
            }
        }
    }
}
