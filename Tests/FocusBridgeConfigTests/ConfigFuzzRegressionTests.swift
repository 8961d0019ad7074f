import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeTestSupport
import FocusBridgeTime
import Foundation
import XCTest

/// One test per crash the fuzz targets found in reading the configuration (Fuzz/README.md,
/// "Findings"; the reproducers are in Fuzz/crashes/config/; the other findings are tested in
/// FocusBridgeStoreTests and FocusBridgeDBusTests). Those that crashed the process run the
/// input in a child process (`expectNormalExit`), since a crash in this process would end the
/// whole test run, and expect the child to finish normally. The inputs of the TOML findings
/// (aborts of toml++, Fuzz/README.md) are read in process, and the error and its place are
/// checked.
///
/// Each finding is fixed; its test guards the fix.
final class ConfigFuzzRegressionTests: XCTestCase {
    /// Finding 1 (Fuzz/README.md): a table header whose key starts with a character no key can
    /// start with — a half-typed `[` on a line of its own — must not take the running bridge down
    /// on reload. FocusBridgeTOML reads the header as any other syntax: each is a `ConfigError` at
    /// the character that cannot start a key.
    func testTableHeaderWithoutAKeyIsAnErrorNotAnAbort() {
        expectConfigError("[\u{0E}", at: (1, 2), saying: "found the control character U+000E")  // the fuzzer's
        expectConfigError("[general]\nmax-actions = 2\n[\n", at: (3, 2), saying: "expected a key")
        expectConfigError("[Ärger]\nlevel = \"passive\"\n", at: (1, 2), saying: "found \"Ä\"")
        expectConfigError("[*]\n", at: (1, 2), saying: "expected a key")
        expectConfigError("[[[focus.x.schedule]]]\n", at: (1, 3), saying: "expected a key")
    }

    /// Finding 7 (Fuzz/README.md): a bad header after triple quotes in a one-line literal string,
    /// in a comment, or of the other kind inside a multi-line string, or after CR LF line ends.
    /// The reader has one lexer, so the header after each is found and refused where it is, and
    /// what only looks like a header inside a string or an array is read as such.
    func testHeaderCheckIsNotFooledByTripleQuotes() {
        expectConfigError("a = '''x \"\"\" y'''\n[*]\n", at: (2, 2), saying: "expected a key")
        expectConfigError("# see \"\"\"\n[*]\n", at: (2, 2), saying: "expected a key")
        expectConfigError("a = \"\"\"\nx '''\n\"\"\"\n[*]\n", at: (4, 2), saying: "expected a key")
        expectConfigError("[general]\r\nmax-actions = 2\r\n[*]\r\n", at: (3, 2), saying: "expected a key")
        let lookalikes = ["a = \"\"\"\n[*]\n\\\"\"\"\"\n[general]\n", "a = '''\n[\n'''\n", "a = [\n[1], # ]\n]\n",
                          "a = \"[*] \\\" #\"\n[general]\n", "a = \"\"\"x\"\"\"\"\"\n[general]\n"]
        for text in lookalikes {
            // `a` is no key the schema knows at the top level, but the syntax is right.
            do {
                _ = try Configuration.parse(text, path: "f.toml")
                XCTFail("\(text.debugDescription) was accepted")
            } catch {
                XCTAssertTrue(error.message.hasPrefix("unknown key `a` at the top level"), "\(text.debugDescription): \(error)")
            }
        }
    }

    /// Findings 9 and 10 (Fuzz/README.md): a date-time whose time does not start with a digit and
    /// an array with a stray `}` are each a syntax error at the character.
    func testWhatTomlPlusPlusAbortedOnIsASyntaxError() {
        expectConfigError("t = 1979-05-27T:00\n", at: (1, 16), saying: "expected the hour")
        expectConfigError("[apps.X]\nlevel = \"active\"\nwhen = 1979-05-27T:00\n", at: (3, 19), saying: "expected the hour")
        expectConfigError("a = [1, }\n", at: (1, 9), saying: "expected a value")
    }

    /// What else the fuzzer met: NUL bytes, text that is not UTF-8
    /// (UTF-16 with its byte order mark), a lone CR, nesting deep enough to exhaust a recursive
    /// parser's stack. Each is refused with its place; a UTF-8 byte order mark is allowed.
    func testBytesTheReaderRefuses() throws {
        expectConfigError("a = 1\u{0}\n", at: (1, 6), saying: "U+0000")
        expectConfigError("a = \"\u{0}\"\n", at: (1, 6), saying: "U+0000")
        expectConfigError("[general]\rmax-actions = 2\n", at: (1, 10), saying: "carriage return")
        expectConfigError("general = " + String(repeating: "[", count: 100_000), at: (1, 111), saying: "nested")
        expectConfigError("[" + Array(repeating: "a", count: 100_000).joined(separator: ".") + "]", at: (1, 202),
                          saying: "nested")

        let directory = NSTemporaryDirectory() + "focus-bridge-fuzz-regression-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let utf16 = directory + "/utf16.toml"
        let littleEndian = "[general]\nmax-actions = 2\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        try Data([0xFF, 0xFE] + littleEndian).write(to: URL(fileURLWithPath: utf16))
        XCTAssertThrowsError(try Configuration.load(path: utf16)) { error in
            XCTAssertEqual(error as? ConfigError,
                           ConfigError(path: utf16, line: 1, column: 1, message: "the file is not UTF-8 text (byte 0xFF here)"))
        }
        let latin1 = directory + "/latin1.toml"
        try Data("[apps.\"M".utf8 + [0xFC] + "ll\"]\nlevel = \"passive\"\n".utf8).write(to: URL(fileURLWithPath: latin1))
        XCTAssertThrowsError(try Configuration.load(path: latin1)) { error in
            XCTAssertEqual(error as? ConfigError,
                           ConfigError(path: latin1, line: 1, column: 9, message: "the file is not UTF-8 text (byte 0xFC here)"))
        }
        let bom = directory + "/bom.toml"
        try Data([0xEF, 0xBB, 0xBF] + "[general]\nmax-actions = 2\n".utf8).write(to: URL(fileURLWithPath: bom))
        XCTAssertEqual(try Configuration.load(path: bom).policy.general.maxActions, 2)
    }

    /// Every reproducer the fuzzer kept for the config target (Fuzz/crashes/config/, the toml++
    /// assertions among them) is read in process: refused with a place inside the file, or read.
    func testEveryConfigReproducerIsReadOrRefusedWithItsPlace() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/crashes/config")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertGreaterThanOrEqual(files.count, 20)
        for file in files {
            let path = folder.appendingPathComponent(file).path
            do {
                _ = try Configuration.load(path: path)
            } catch {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
                XCTAssertTrue((1...lines).contains(error.line) && error.column >= 1, "\(file): \(error)")
            }
        }
    }

    /// Finding 3: `coalesce-seconds` near `Int.max` (allowed by the reader: only negative values
    /// are refused) makes `Policy.decide` trap on the first duplicate: its trace line does
    /// `Int(window)` with `window = Double(coalesceSeconds)`, which rounds up to 2^63
    /// ("Double value cannot be converted to Int because the result would be greater than
    /// Int.max", Decision.swift). Refusing such a value in the file is a fix as good as not
    /// trapping: either passes.
    func testHugeCoalesceSecondsDoesNotTrap() throws {
        try expectNormalExit {
            Self.deliverTwice("[general]\ncoalesce-seconds = 9223372036854775807\n")
        }
    }

    /// Finding 4: the same with `rate-limit-seconds` near `Int.max`: the "collapsed" trace line
    /// does `Int(context.flood.window)` (Decision.swift) and traps for the first notification over
    /// the rate limit.
    func testHugeRateLimitSecondsDoesNotTrap() throws {
        try expectNormalExit {
            Self.deliverTwice("[general]\nrate-limit = 1\nrate-limit-seconds = 9223372036854775807\n")
        }
    }

    /// Expects `text` to be refused at `line`:`column` with a message that says `words`.
    private func expectConfigError(_ text: String, at place: (line: Int, column: Int), saying words: String,
                                   file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try Configuration.parse(text, path: "f.toml")
            XCTFail("\(text.prefix(80).debugDescription) was accepted", file: file, line: line)
        } catch {
            XCTAssertTrue(error.line == place.line && error.column == place.column && error.message.contains(words),
                          "\(text.prefix(80).debugDescription): \(error)", file: file, line: line)
        }
    }

    /// Parses `text` (a refusal is fine) and, as the bridge does, delivers one notification and
    /// then the same again a second later under its settings: a duplicate and, past a rate limit
    /// of one, a flood.
    private static func deliverTwice(_ text: String) {
        guard let configuration = try? Configuration.parse(text, path: "f.toml") else { return }
        let settings = configuration.policy
        let app = AppIdentity(key: "Mail", source: .appName)
        let notification = NotificationRequest(appName: "Mail", summary: "New mail", body: "Hello")
        let now = Instant(timeIntervalSince1970: 1_800_000_000)
        var flood = FloodGate(limit: settings.general.rateLimit, window: Double(settings.general.rateLimitSeconds))
        var recent = DuplicateTracker()
        let first = Policy.decide(notification, app: app, context: PolicyContext(settings: settings, now: now,
                                                                                 recent: recent, flood: flood))
        guard first.outcome == .delivered else { exit(5) }
        flood.delivered(app.key, at: now)
        recent.delivered(1, appKey: app.key, summary: notification.summary, body: notification.body, at: now)
        let later = now.addingTimeInterval(1)
        _ = Policy.decide(notification, app: app, context: PolicyContext(settings: settings, now: later,
                                                                         recent: recent, flood: flood))
        let other = NotificationRequest(appName: "Mail", summary: "Other mail", body: "Hi")
        _ = Policy.decide(other, app: app, context: PolicyContext(settings: settings, now: later, recent: recent, flood: flood))
    }
}
