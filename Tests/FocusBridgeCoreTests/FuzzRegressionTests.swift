import CGLib
import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeStore
import Foundation
import Testing

/// One test per crash the fuzz targets found (Fuzz/README.md, "Findings"; the reproducers are in
/// Fuzz/crashes/). Each runs the crashing input in a child process (an exit test), since a crash
/// in this process would end the whole test run, and expects the child to finish normally.
///
/// Each finding is fixed; its test guards the fix.
@Suite struct FuzzRegressionTests {
    /// Finding 1: toml++ 3.4.0 (inside TOMLKit 0.6.0) asserts — `parse_key(): Assertion
    /// is_bare_key_character(*cp) || is_string_delimiter(*cp) failed`, SIGABRT in debug and
    /// release builds alike — when a table header's key starts with a character no key can start
    /// with. A half-typed `[` on a line of its own is enough, so saving the file mid-edit takes
    /// the running bridge down on reload, and `focusctl check-config` aborts instead of
    /// reporting. Upstream fix: marzer/tomlplusplus#301. Each of these must be a `ConfigError`.
    @Test func tableHeaderWithoutAKeyIsAnErrorNotAnAbort() async {
        await #expect(processExitsWith: .success) {
            FuzzRegression.expectConfigError("[\u{0E}")  // the fuzzer's minimised reproducer
        }
        await #expect(processExitsWith: .success) {
            FuzzRegression.expectConfigError("[general]\nmax-actions = 2\n[\n")
        }
        await #expect(processExitsWith: .success) {
            FuzzRegression.expectConfigError("[Ärger]\nlevel = \"passive\"\n")
        }
        await #expect(processExitsWith: .success) {
            FuzzRegression.expectConfigError("[*]\n")
        }
        await #expect(processExitsWith: .success) {
            FuzzRegression.expectConfigError("[[[focus.x.schedule]]]\n")
        }
    }

    /// Finding 7: `HeaderCheck` (the fix of finding 1) reads the file line by line and counts
    /// `"""` and `'''` per line to know whether a line is inside a multi-line string. A line whose
    /// count is odd for another reason — triple quotes inside a one-line literal string, in a
    /// comment, or the other kind of triple quote inside a multi-line string — makes it skip the
    /// lines after it, and toml++ aborted on a bad header there as before. Fixed: `HeaderCheck`
    /// now reads strings, escapes, comments and arrays as TOML's lexer does.
    @Test func headerCheckIsNotFooledByTripleQuotes() async {
        await #expect(processExitsWith: .success) {
            FuzzRegression.expectConfigError("a = '''x \"\"\" y'''\n[*]\n")
        }
        await #expect(processExitsWith: .success) {
            FuzzRegression.expectConfigError("# see \"\"\"\n[*]\n")
        }
        await #expect(processExitsWith: .success) {
            FuzzRegression.expectConfigError("a = \"\"\"\nx '''\n\"\"\"\n[*]\n")
        }
        // Nor may it refuse what only looks like a header inside a string or an array.
        let lookalikes = ["a = \"\"\"\n[*]\n\\\"\"\"\"\n[general]\n", "a = '''\n[\n'''\n", "a = [\n[1], # ]\n]\n",
                          "a = \"[*] \\\" #\"\n[general]\n", "a = \"\"\"x\"\"\"\"\"\n[general]\n"]
        for text in lookalikes {
            do {
                _ = try Configuration.parse(text, path: "f.toml")
            } catch {
                #expect(!error.message.contains("table header"), "\(text.debugDescription): \(error)")
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
    /// Exits non-zero unless `text` is refused with a `ConfigError` (an abort fails the test too).
    static func expectConfigError(_ text: String) {
        do {
            _ = try Configuration.parse(text, path: "f.toml")
            exit(3)
        } catch {
            guard error.line >= 1, error.column >= 1 else { exit(4) }
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
