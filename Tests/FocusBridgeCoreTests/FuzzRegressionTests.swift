import CGLib
import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeStore
import Foundation
import Testing

/// One test per crash the fuzz targets found (Fuzz/README.md, "Findings"; the reproducers are in
/// Fuzz/crashes/). Those that crashed the process run the input in a child process (an exit
/// test), since a crash in this process would end the whole test run, and expect the child to
/// finish normally. The TOML findings (toml++ aborts) are gone with toml++: their inputs are
/// read in process, and the error and its place are checked.
///
/// Each finding is fixed; its test guards the fix.
@Suite struct FuzzRegressionTests {
    /// Finding 1: toml++ 3.4.0 (inside TOMLKit 0.6.0, the TOML parser then) asserted — `parse_key():
    /// Assertion is_bare_key_character(*cp) || is_string_delimiter(*cp) failed`, SIGABRT — when a
    /// table header's key starts with a character no key can start with. A half-typed `[` on a
    /// line of its own was enough to take the running bridge down on reload. FocusBridgeTOML reads
    /// the header as any other syntax: each is a `ConfigError` at the character that cannot start
    /// a key.
    @Test func tableHeaderWithoutAKeyIsAnErrorNotAnAbort() {
        FuzzRegression.expectConfigError("[\u{0E}", at: (1, 2), saying: "found the control character U+000E")  // the fuzzer's
        FuzzRegression.expectConfigError("[general]\nmax-actions = 2\n[\n", at: (3, 2), saying: "expected a key")
        FuzzRegression.expectConfigError("[Ärger]\nlevel = \"passive\"\n", at: (1, 2), saying: "found \"Ä\"")
        FuzzRegression.expectConfigError("[*]\n", at: (1, 2), saying: "expected a key")
        FuzzRegression.expectConfigError("[[[focus.x.schedule]]]\n", at: (1, 3), saying: "expected a key")
    }

    /// Finding 7: `HeaderCheck`, the stopgap for finding 1, counted `"""` and `'''` per line and was
    /// fooled by triple quotes in a one-line literal string, in a comment, or of the other kind
    /// inside a multi-line string, and by CR LF line ends: toml++ then aborted on a bad header
    /// after them. The reader has one lexer, so the header after each is found and refused where
    /// it is, and what only looks like a header inside a string or an array is read as such.
    @Test func headerCheckIsNotFooledByTripleQuotes() throws {
        FuzzRegression.expectConfigError("a = '''x \"\"\" y'''\n[*]\n", at: (2, 2), saying: "expected a key")
        FuzzRegression.expectConfigError("# see \"\"\"\n[*]\n", at: (2, 2), saying: "expected a key")
        FuzzRegression.expectConfigError("a = \"\"\"\nx '''\n\"\"\"\n[*]\n", at: (4, 2), saying: "expected a key")
        FuzzRegression.expectConfigError("[general]\r\nmax-actions = 2\r\n[*]\r\n", at: (3, 2), saying: "expected a key")
        let lookalikes = ["a = \"\"\"\n[*]\n\\\"\"\"\"\n[general]\n", "a = '''\n[\n'''\n", "a = [\n[1], # ]\n]\n",
                          "a = \"[*] \\\" #\"\n[general]\n", "a = \"\"\"x\"\"\"\"\"\n[general]\n"]
        for text in lookalikes {
            // `a` is no key the schema knows at the top level, but the syntax is right.
            do {
                _ = try Configuration.parse(text, path: "f.toml")
                Issue.record("\(text.debugDescription) was accepted")
            } catch {
                #expect(error.message.hasPrefix("unknown key `a` at the top level"), "\(text.debugDescription): \(error)")
            }
        }
    }

    /// Findings 9 and 10: toml++ 3.4.0 asserted (`parse_time(): Assertion is_decimal_digit(*cp)`,
    /// `parse_value(): Assertion !is_value_terminator(*cp)`) on a date-time whose time does not
    /// start with a digit and on an array with a stray `}`; `ParserGuard` had every load parsed
    /// first in a child process to survive them. Now each is a syntax error at the character.
    @Test func whatTomlPlusPlusAbortedOnIsASyntaxError() {
        FuzzRegression.expectConfigError("t = 1979-05-27T:00\n", at: (1, 16), saying: "expected the hour")
        FuzzRegression.expectConfigError("[apps.X]\nlevel = \"active\"\nwhen = 1979-05-27T:00\n", at: (3, 19), saying: "expected the hour")
        FuzzRegression.expectConfigError("a = [1, }\n", at: (1, 9), saying: "expected a value")
    }

    /// What else the fuzzer and the toml++ workarounds met: NUL bytes, text that is not UTF-8
    /// (UTF-16 with its byte order mark), a lone CR, nesting deep enough to exhaust a recursive
    /// parser's stack. Each is refused with its place; a UTF-8 byte order mark is allowed.
    @Test func bytesTheReaderRefuses() throws {
        FuzzRegression.expectConfigError("a = 1\u{0}\n", at: (1, 6), saying: "U+0000")
        FuzzRegression.expectConfigError("a = \"\u{0}\"\n", at: (1, 6), saying: "U+0000")
        FuzzRegression.expectConfigError("[general]\rmax-actions = 2\n", at: (1, 10), saying: "carriage return")
        FuzzRegression.expectConfigError("general = " + String(repeating: "[", count: 100_000), at: (1, 111), saying: "nested")
        FuzzRegression.expectConfigError("[" + Array(repeating: "a", count: 100_000).joined(separator: ".") + "]", at: (1, 202),
                                         saying: "nested")

        let directory = NSTemporaryDirectory() + "focus-bridge-fuzz-regression-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let utf16 = directory + "/utf16.toml"
        let littleEndian = "[general]\nmax-actions = 2\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        try Data([0xFF, 0xFE] + littleEndian).write(to: URL(fileURLWithPath: utf16))
        #expect(throws: ConfigError(path: utf16, line: 1, column: 1, message: "the file is not UTF-8 text (byte 0xFF here)")) {
            try Configuration.load(path: utf16)
        }
        let latin1 = directory + "/latin1.toml"
        try Data("[apps.\"M".utf8 + [0xFC] + "ll\"]\nlevel = \"passive\"\n".utf8).write(to: URL(fileURLWithPath: latin1))
        #expect(throws: ConfigError(path: latin1, line: 1, column: 9, message: "the file is not UTF-8 text (byte 0xFC here)")) {
            try Configuration.load(path: latin1)
        }
        let bom = directory + "/bom.toml"
        try Data([0xEF, 0xBB, 0xBF] + "[general]\nmax-actions = 2\n".utf8).write(to: URL(fileURLWithPath: bom))
        #expect(try Configuration.load(path: bom).policy.general.maxActions == 2)
    }

    /// Every reproducer the fuzzer kept for the config target (Fuzz/crashes/config/, the toml++
    /// assertions among them) is read in process: refused with a place inside the file, or read.
    @Test func everyConfigReproducerIsReadOrRefusedWithItsPlace() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/crashes/config")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files.count >= 20)
        for file in files {
            let path = folder.appendingPathComponent(file).path
            do {
                _ = try Configuration.load(path: path)
            } catch {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
                #expect((1...lines).contains(error.line) && error.column >= 1, "\(file): \(error)")
            }
        }
    }

    /// Finding 8: `x-focus-relevance = <nan>` (a double any client can send) comes out of
    /// `HeldNotification.relevance(of:)` as NaN: `min(max(nan, 0), 1)` is NaN. SQLite stores a NaN
    /// as NULL, the `relevance` column is NOT NULL, so the group commit of the batch it is in
    /// fails: a notification held during a Focus makes the bridge lose the history rows of every
    /// notification answered with it (up to 64) and deliver the held ones through the Focus.
    /// Fixed: NaN counts as 0.
    @Test func nanRelevanceIsClampedAndStored() throws {
        let nan = NotificationRequest(appName: "Mail", summary: "s", hints: ["x-focus-relevance": .double(.nan)])
        let relevance = HeldNotification.relevance(of: nan)
        #expect((0...1).contains(relevance))

        let directory = NSTemporaryDirectory() + "focus-bridge-fuzz-regression-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try Store(directory: directory)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let held = HeldNotification(id: 2, reason: .focus("Work"), app: "Mail", summary: "s", body: "", level: .active,
                                    relevance: relevance, received: now, holders: [Caller(connection: ":1.9")], processID: nil)
        let other = HistoryEntry(id: 1, app: "Chat", summary: "delivered in the same batch", body: "", level: .active,
                                 decision: .delivered, received: now)
        let history = HistoryEntry(id: 2, app: "Mail", summary: "s", body: "", level: .active, decision: .heldFocus,
                                   received: now)
        try store.commit(history: [other, history], holds: [Store.Hold(item: held, payloadType: "(s)", payload: [0x73, 0])])
        #expect(try store.history(limit: 10).count == 2)
        #expect(try store.heldNotifications().count == 1)
    }

    /// Finding 2: a hint of type `h` (a Unix fd handle, which a client may put in a `v`) makes
    /// `Variant.integer` call `g_variant_get_int32` on it: `GLib-CRITICAL: g_variant_get_int32:
    /// assertion 'g_variant_is_of_type (value, G_VARIANT_TYPE_INT32)' failed` on every such
    /// notification (fatal under G_DEBUG=fatal-criticals), and the value read is 0.
    @Test func handleHintIsReadWithoutAGLibCritical() async {
        await #expect(processExitsWith: .success) {
            FuzzRegression.makeGLibWarningsFatal()
            let handle = Variant.parse("handle 3")!
            _ = handle.integer
        }
    }

    /// Finding 3: `coalesce-seconds` near `Int.max` (allowed by the reader: only negative values
    /// are refused) makes `Policy.decide` trap on the first duplicate: its trace line does
    /// `Int(window)` with `window = TimeInterval(coalesceSeconds)`, which rounds up to 2^63
    /// ("Double value cannot be converted to Int because the result would be greater than
    /// Int.max", Decision.swift). Refusing such a value in the file is a fix as good as not
    /// trapping: either passes.
    @Test func hugeCoalesceSecondsDoesNotTrap() async {
        await #expect(processExitsWith: .success) {
            FuzzRegression.deliverTwice("[general]\ncoalesce-seconds = 9223372036854775807\n")
        }
    }

    /// Finding 4: the same with `rate-limit-seconds` near `Int.max`: the "collapsed" trace line
    /// does `Int(context.flood.window)` (Decision.swift) and traps for the first notification over
    /// the rate limit.
    @Test func hugeRateLimitSecondsDoesNotTrap() async {
        await #expect(processExitsWith: .success) {
            FuzzRegression.deliverTwice("[general]\nrate-limit = 1\nrate-limit-seconds = 9223372036854775807\n")
        }
    }
}

/// What the exit tests run in their child process (an exit test's body captures nothing).
enum FuzzRegression {
    /// Expects `text` to be refused at `line`:`column` with a message that says `words`.
    static func expectConfigError(_ text: String, at place: (line: Int, column: Int), saying words: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try Configuration.parse(text, path: "f.toml")
            Issue.record("\(text.prefix(80).debugDescription) was accepted", sourceLocation: sourceLocation)
        } catch {
            #expect(error.line == place.line && error.column == place.column && error.message.contains(words),
                    "\(text.prefix(80).debugDescription): \(error)", sourceLocation: sourceLocation)
        }
    }

    /// A GLib critical or warning aborts, as FocusBridge misused GLib.
    static func makeGLibWarningsFatal() {
        _ = g_log_set_always_fatal(GLogLevelFlags(rawValue: G_LOG_LEVEL_ERROR.rawValue | G_LOG_LEVEL_CRITICAL.rawValue
                                                    | G_LOG_LEVEL_WARNING.rawValue))
    }

    /// Parses `text` (a refusal is fine) and, as the bridge does, delivers one notification and
    /// then the same again a second later under its settings: a duplicate and, past a rate limit
    /// of one, a flood.
    static func deliverTwice(_ text: String) {
        guard let configuration = try? Configuration.parse(text, path: "f.toml") else { return }
        let settings = configuration.policy
        let app = AppIdentity(key: "Mail", source: .appName)
        let notification = NotificationRequest(appName: "Mail", summary: "New mail", body: "Hello")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var flood = FloodGate(limit: settings.general.rateLimit, window: TimeInterval(settings.general.rateLimitSeconds))
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
