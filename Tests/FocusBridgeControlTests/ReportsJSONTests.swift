import FocusBridgeControl
@testable import FocusBridgeCore
import FocusBridgeJSON
import FocusBridgeTime
import Foundation
import XCTest

/// The control interface's JSON (docs/INTERFACES.md): an absent value is written as `null`,
/// never left out; the keys that say otherwise are left out; and focusctl reads back what the
/// daemon wrote.
final class ReportsJSONTests: XCTestCase {
    private func object(_ value: some Encodable) throws -> [String: Any] {
        let data = try JSONEncoder().encode(value)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private var status: StatusReport {
        StatusReport(version: "1", silent: false, focus: nil, nextSummary: nil,
                     downstream: .init(mode: "log", target: "log", connected: true),
                     counts: .init(received: nil, delivered: nil, queued: nil, inFlight: nil, heldFocus: 0, heldSummary: 0))
    }

    func testAbsentValuesAreNullNotLeftOut() throws {
        let json = try object(status)
        XCTAssertTrue(json["focus"] is NSNull)
        XCTAssertTrue(json["next-summary"] is NSNull)
        let downstream = try XCTUnwrap(json["downstream"] as? [String: Any])
        for key in ["daemon", "problem", "daemon-dnd", "cause", "reason"] { XCTAssertTrue(downstream[key] is NSNull, key) }
        XCTAssertEqual((downstream["failures"] as? [Any])?.count, 0)
        // Left out on purpose: capabilities before the daemon answered, the running counters in StateChanged.
        XCTAssertNil(downstream["capabilities"])
        let counts = try XCTUnwrap(json["counts"] as? [String: Any])
        XCTAssertEqual(Set(counts.keys), ["held-focus", "held-summary", "snoozed"])

        let history = try object(HistoryReport(HistoryEntry(id: 3, app: "mail", summary: "Hi", body: "", level: .active,
                                                            decision: .delivered, received: Instant(timeIntervalSince1970: 0))))
        XCTAssertTrue(history["closed"] is NSNull)
        XCTAssertTrue(history["close-reason"] is NSNull)
    }

    func testPresentValuesAndRoundTrip() throws {
        var report = status
        report.focus = .init(ActiveFocus(name: "work", since: Instant(timeIntervalSince1970: 0), until: nil, source: .manual))
        report.downstream.problem = "cannot start dunst"
        let json = try object(report)
        let focus = try XCTUnwrap(json["focus"] as? [String: Any])
        XCTAssertEqual(focus["name"] as? String, "work")
        XCTAssertTrue(focus["until"] is NSNull)
        XCTAssertEqual((json["downstream"] as? [String: Any])?["problem"] as? String, "cannot start dunst")
        XCTAssertEqual(try JSONDecoder().decode(StatusReport.self, from: JSONEncoder().encode(report)), report)

        // A key that is missing altogether reads as nil, as null does.
        let missing = try JSONDecoder().decode(HistoryReport.self, from: Data("""
            {"id": 1, "app": "a", "summary": "s", "body": "", "level": "active", "decision": "delivered",
             "received": "1970-01-01T00:00:00Z"}
            """.utf8))
        XCTAssertNil(missing.closed)
        XCTAssertNil(missing.closeReason)
    }

    func testFocusChangeFlattensTheStatus() throws {
        let change = FocusChangeReport(status: status, ended: .init(name: "work", held: 3, afterFocus: "digest"))
        let json = try object(change)
        XCTAssertEqual(json["version"] as? String, "1")
        XCTAssertEqual((json["ended"] as? [String: Any])?["held"] as? Int, 3)
        XCTAssertTrue(try object(FocusChangeReport(status: status, ended: nil))["ended"] is NSNull)
        XCTAssertEqual(try JSONDecoder().decode(FocusChangeReport.self, from: JSONEncoder().encode(change)), change)
    }
}

extension ReportsJSONTests {
    func testHistoryReportWritesNullNotNothing() {
        let entry = HistoryEntry(id: 3, app: "a", summary: "s", body: "b", level: .passive, decision: .heldFocus,
                                 received: Instant(timeIntervalSince1970: 0))
        XCTAssertEqual(JSONText.encode(HistoryReport(entry)),
                       #"{"app":"a","body":"b","close-reason":null,"closed":null,"decision":"held-focus","door":"org.freedesktop.Notifications","fate":"held-focus","id":3,"level":"passive","outcome":null,"received":"1970-01-01T00:00:00.000Z","steps":[],"summary":"s","via":null}"#)
        let page = HistoryEntry(id: 4, app: "app.slack.com", summary: "s", body: "app.slack.com\n\nb", level: .active,
                                decision: .delivered, received: Instant(timeIntervalSince1970: 0), via: "chromium")
        XCTAssertEqual(HistoryReport(page).via, "chromium")
        XCTAssertTrue(JSONText.encode(HistoryReport(page)).hasSuffix(#""summary":"s","via":"chromium"}"#))
    }
}

/// Every report written byte for byte as Foundation's `JSONEncoder` with `.sortedKeys` writes it,
/// and read back by FocusBridgeJSON's decoder and by Foundation's (focusctl's reader).
final class ReportsFoundationTests: XCTestCase {
    private let at = Instant(timeIntervalSince1970: 1_795_000_000.125)

    private func foundationText(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Written as Foundation writes it, read back by ours and by Foundation's, and Foundation's
    /// text read by ours.
    private func check<T: Codable & Equatable>(_ value: T, file: StaticString = #filePath, line: UInt = #line) throws {
        let ours = JSONText.encode(value)
        XCTAssertEqual(ours, try foundationText(value), file: file, line: line)
        XCTAssertEqual(try JSONText.decode(T.self, from: ours), value, file: file, line: line)
        XCTAssertEqual(try JSONDecoder().decode(T.self, from: Data(ours.utf8)), value, file: file, line: line)
        XCTAssertEqual(try JSONText.decode(T.self, from: try foundationText(value)), value, file: file, line: line)
    }

    private var decision: Decision {
        var context = PolicyContext(now: at)
        context.capabilities = ["actions", "body"]
        return Policy.decide(NotificationRequest(appName: "Mail", summary: "Hi \"there\"", body: "a/b\n\tc é 😀",
                                                 actions: ["reply", "Reply"], hints: ["urgency": .integer(2)]),
                             app: AppIdentity(key: "Mail", source: .appName), context: context)
    }

    private var entry: HistoryEntry {
        HistoryEntry(id: 7, app: "mail", summary: "Hi\u{1}", body: "line\r\nbreak", level: .timeSensitive,
                     decision: .heldFocus, received: at)
    }

    func testEveryReportIsWrittenAsFoundationWroteItAndReadsBack() throws {
        let downstream = StatusReport.Downstream(mode: "dunst", target: "dunst", connected: true,
                                                 daemon: ServerInformation(name: "dunst", vendor: "knopwob", version: "1.9", specVersion: "1.2"))
        let status = StatusReport(version: "1", silent: true,
                                  focus: .init(ActiveFocus(name: "work", since: at, until: at + 3600, source: .manual)),
                                  nextSummary: Timestamp.string(at), downstream: downstream,
                                  counts: .init(received: 5, delivered: 4, queued: 0, inFlight: 1, heldFocus: 2, heldSummary: 3))
        try check(status)
        try check(FocusChangeReport(status: status, ended: .init(name: "work", held: 3, afterFocus: "digest")))
        try check(FocusChangeReport(status: status, ended: nil))
        try check(HistoryReport(entry))
        try check(DecisionReport(decision))
        try check(ExplainIDReport(entry, now: decision))
        try check(FateStepReport(FateStep(.inDigest, at: at, number: 12)))
        try check(FateActionReport(action: "show", ids: [1, 2, UInt32.max], copy: 9, digest: nil, message: "shown"))
        var profile = FocusProfile(name: "work")
        profile.schedule = [ScheduleEntry(days: [.mon, .fri], start: TimeOfDay("09:00")!, end: TimeOfDay("17:30")!)]
        try check(FocusListReport(profile, active: true))
        try check(SummaryReport(next: at, held: []))
        try check(SummaryReport(next: nil, held: []))
        let many = (1...1500).map { HeldNotification(id: UInt32($0), reason: .summary, app: "news", summary: "s\($0)", body: "",
                                                     level: .passive, relevance: 0.5, received: at, holders: [], processID: nil) }
        let bounded = SummaryReport(next: at, held: many)
        XCTAssertEqual(bounded.count, 1500, "how many are held")
        XCTAssertEqual(bounded.items.count, SummaryReport.maxItems, "how many are listed")
        try check(MuteReport(MuteList.Mute(app: "news", until: at)))
        let review = ReviewReport(frequency: "weekly", since: at - 7 * 86_400, until: at, next: nil, delivered: false,
                                  apps: [.init(TimeSensitiveReview.Item(app: "Pager", sent: 5, acted: 1), at: at)],
                                  reviewed: [.init(ReviewMemory.Entry(app: "Slack", at: at, sent: 9, acted: 2, state: .waiting))])
        try check(review)
        let reviewJSON = try XCTUnwrap(try JSONSerialization.jsonObject(with: JSONEncoder().encode(review)) as? [String: Any])
        XCTAssertEqual(Set(reviewJSON.keys), ["frequency", "since", "until", "next", "delivered", "apps", "reviewed"],
                       "the keys focusctl(1), JSON OUTPUT, review, documents")
        XCTAssertTrue(reviewJSON["next"] is NSNull, "off: null, not left out")
        let app = try XCTUnwrap((reviewJSON["apps"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(app.keys), ["app", "sent", "acted", "state", "at"])
        XCTAssertEqual(app["state"] as? String, "due")
        try check(ShareForgetReport(device: "laptop", message: "forgotten"))
        var ledger = ShareLedger()
        ledger.devices["laptop"] = .init(sequence: 3, change: SharedChange(focus: "work", since: at, until: nil, changed: at),
                                         version: "0.9", seen: at, applied: true)
        ledger.devices["phone"] = .init(sequence: 1, change: SharedChange(focus: "gym", since: at, until: nil, changed: at),
                                        version: "0.9", seen: at, applied: false, notApplied: .unknownFocus)
        try check(ledger)
        try check(ShareReport(folder: "/home/me/Sync", device: "desk", problem: nil, ledger: ledger))
        let devices = ShareReport(folder: "/s", device: "desk", problem: nil, ledger: ledger).devices
        XCTAssertEqual(devices.map(\.ignored), [nil, "unknown-focus"], "applied: null; not: why")
        try check(WindowReport(source: "sway", problem: nil, state: WindowState(focused: FocusedWindow(names: ["firefox"], processID: 42))))
        try check(ManualFocus(state: .on("work"), since: at, until: at + 60, device: "laptop"))
        try check(ManualFocus(state: .off, since: at, until: nil))
        try check(ExplainRequest(app: "Mail", urgency: "low", summary: "s", actions: ["a=b"], hints: ["int:x:1"], at: "10:00"))
        try check(ServerInformation(name: "mako", vendor: "emersion", version: "1", specVersion: "1.2"))
        let record = SharedFocusRecord(device: "desk", sequence: 1 << 53,
                                       change: SharedChange(focus: nil, since: at, until: at + 1, changed: at), version: "1")
        let file = SharedFocus.encode(record)
        XCTAssertEqual(String(decoding: file, as: UTF8.self), try foundationText(SharedFocus.Wire(
            device: "desk", sequence: 1 << 53, focus: nil, since: Timestamp.string(at), until: Timestamp.string(at + 1),
            changed: Timestamp.string(at), version: "1")) + "\n")
        XCTAssertEqual(SharedFocus.decode(file, device: "desk"), .success(record))
        // Encodable only: the text alone.
        let answer = ExplainAnswer(DecisionReport(decision), assumed: ["time: now (no --at)"])
        XCTAssertEqual(JSONText.encode(answer), try foundationText(answer))
    }
}
