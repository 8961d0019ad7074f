import FocusBridgeSystem
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Path text as NSString's path methods gave it, the environment as ProcessInfo gave it, and
/// text trimmed as `trimmingCharacters(in: .whitespacesAndNewlines)` did.
final class PathAndEnvironmentTests: XCTestCase {
    func testJoiningAndTakingApart() {
        XCTAssertEqual(FilePath.appending("/state", "state.sqlite3"), "/state/state.sqlite3")
        XCTAssertEqual(FilePath.appending("/state/", "x"), "/state/x")
        XCTAssertEqual(FilePath.appending("", "x"), "x")
        XCTAssertEqual(FilePath.appending("/a", ""), "/a")
        XCTAssertEqual(FilePath.parent("/home/u/.config/focus-bridge/config.toml"), "/home/u/.config/focus-bridge")
        XCTAssertEqual(FilePath.parent("/home//u/"), "/home")
        XCTAssertEqual(FilePath.parent("/home"), "/")
        XCTAssertEqual(FilePath.parent("/"), "/")
        XCTAssertEqual(FilePath.parent("relative"), "")
        XCTAssertEqual(FilePath.parent(""), "")
        XCTAssertEqual(FilePath.lastComponent("/sync/Focus/laptop.json"), "laptop.json")
        XCTAssertEqual(FilePath.lastComponent("/sync/Focus/"), "Focus")
        XCTAssertEqual(FilePath.lastComponent("/"), "/")
        XCTAssertEqual(FilePath.lastComponent("name"), "name")
        for path in ["/home/u/.config/x.toml", "/home//u/", "/home", "/", "relative", "", "a/b//", "//x"] {
            XCTAssertEqual(FilePath.parent(path), (path as NSString).deletingLastPathComponent, path)
            XCTAssertEqual(FilePath.lastComponent(path), (path as NSString).lastPathComponent, path)
            XCTAssertEqual(FilePath.appending(path, "n"), (path as NSString).appendingPathComponent("n"), path)
        }
    }

    func testStandardizingExpandsTheHomeDropsDotsAndFollowsLinks() throws {
        XCTAssertEqual(FilePath.standardized("~/sync//Focus/", home: "/home/u"), "/home/u/sync/Focus")
        XCTAssertEqual(FilePath.standardized("~", home: "/home/u"), "/home/u")
        XCTAssertEqual(FilePath.standardized("/nowhere/a/./b/../c", home: "/"), "/nowhere/a/c")
        XCTAssertEqual(FilePath.standardized("/nowhere/../../x", home: "/"), "/x")
        XCTAssertEqual(FilePath.standardized("relative/./x/../y", home: "/"), "relative/x/../y",
                       "`..` is taken back in absolute paths only")
        XCTAssertEqual(FilePath.standardized("~no-such-user-here/x", home: "/home/u"), "~no-such-user-here/x")
        XCTAssertEqual(FilePath.standardized("~root/x", home: "/home/u"), "\(Environment.homeDirectory(ofUser: "root") ?? "?")/x")
        XCTAssertEqual(FilePath.standardized("", home: "/home/u"), "")

        var template = Array("/tmp/focus-bridge-path-XXXXXX".utf8CString)
        let folder = String(cString: try XCTUnwrap(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }))
        defer { _ = system("rm -rf '\(folder)'") }
        try Folders.create(folder + "/real/inner", mode: 0o700)
        XCTAssertEqual(symlink(folder + "/real", folder + "/absolute"), 0)
        XCTAssertEqual(symlink(folder + "/absolute/inner", folder + "/twice"), 0)
        XCTAssertEqual(symlink("real/inner", folder + "/relative"), 0)
        XCTAssertEqual(symlink(folder + "/missing", folder + "/dangling"), 0)
        XCTAssertEqual(FilePath.standardized(folder + "/absolute/inner/config.toml"), folder + "/real/inner/config.toml")
        XCTAssertEqual(FilePath.standardized(folder + "/twice/x"), folder + "/real/inner/x", "resolved to the end")
        XCTAssertEqual(FilePath.standardized(folder + "/relative/../x"), folder + "/x", "a relative link is kept")
        XCTAssertEqual(FilePath.standardized(folder + "/dangling/x"), folder + "/dangling/x")
        // What NSString.standardizingPath answers for the same paths.
        for path in ["/absolute/inner/config.toml", "/twice/x", "/relative/../x", "/relative/y", "/dangling/z",
                     "//real/./inner/", "/real/inner/../../absolute"] {
            XCTAssertEqual(FilePath.standardized(folder + path), ((folder + path) as NSString).standardizingPath, path)
        }
        for path in ["~/a/../b", "~", "rel/./x/../y", "/", "", "a//b/"] {
            XCTAssertEqual(FilePath.standardized(path), (path as NSString).standardizingPath, path)
        }
    }

    func testTheEnvironmentAsTheProcessHasIt() {
        setenv("FOCUS_BRIDGE_SYSTEM_TEST", "a=b", 1)
        XCTAssertEqual(Environment.variable("FOCUS_BRIDGE_SYSTEM_TEST"), "a=b")
        XCTAssertEqual(Environment.all["FOCUS_BRIDGE_SYSTEM_TEST"], "a=b", "split at the first =")
        unsetenv("FOCUS_BRIDGE_SYSTEM_TEST")
        XCTAssertNil(Environment.variable("FOCUS_BRIDGE_SYSTEM_TEST"))
        XCTAssertNil(Environment.all["FOCUS_BRIDGE_SYSTEM_TEST"])
        XCTAssertEqual(Environment.processID, getpid())
    }

    func testAValueThatIsNotUTF8IsRepairedNotTrappedOn() {
        setenv("FOCUS_BRIDGE_SYSTEM_TEST", "caf\u{e9}", 1)
        "FOCUS_BRIDGE_SYSTEM_TEST".withCString { name in
            var bytes: [CChar] = [0x63, 0x61, 0x66, CChar(bitPattern: 0xe9), 0]
            setenv(name, &bytes, 1)
        }
        defer { unsetenv("FOCUS_BRIDGE_SYSTEM_TEST") }
        XCTAssertEqual(Environment.variable("FOCUS_BRIDGE_SYSTEM_TEST"), "caf\u{fffd}")
        XCTAssertEqual(Environment.all["FOCUS_BRIDGE_SYSTEM_TEST"], "caf\u{fffd}")
    }

    func testTheHomeFolderIsHOMEWhenSetElseThePasswordDatabases() {
        let saved = Environment.variable("HOME")
        defer { if let saved { setenv("HOME", saved, 1) } else { unsetenv("HOME") } }
        setenv("HOME", "/somewhere/else", 1)
        XCTAssertEqual(Environment.homeDirectory, "/somewhere/else")
        let own = String(cString: getpwuid(geteuid()).pointee.pw_dir)
        setenv("HOME", "", 1)
        XCTAssertEqual(Environment.homeDirectory, own)
        unsetenv("HOME")
        XCTAssertEqual(Environment.homeDirectory, own)
        XCTAssertNil(Environment.homeDirectory(ofUser: "no-such-user-here"))
    }

    func testTrimmingTakesUnicodeWhiteSpaceOffBothEnds() {
        XCTAssertEqual("  unix:path=/run/bus,guid=1\n".trimmingWhitespace(), "unix:path=/run/bus,guid=1")
        XCTAssertEqual("\u{a0}\u{2028}\t4242\r\n\u{3000}".trimmingWhitespace(), "4242")
        XCTAssertEqual("a b".trimmingWhitespace(), "a b")
        XCTAssertEqual(" \n\t ".trimmingWhitespace(), "")
        XCTAssertEqual("".trimmingWhitespace(), "")
        XCTAssertEqual("x\u{301} ".trimmingWhitespace(), "x\u{301}")
    }
}
