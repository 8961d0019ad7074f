import FocusBridgeControl
import FocusBridgeCore
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
        for key in ["daemon", "problem", "daemon-dnd"] { XCTAssertTrue(downstream[key] is NSNull, key) }
        // Left out on purpose: capabilities before the daemon answered, the running counters in StateChanged.
        XCTAssertNil(downstream["capabilities"])
        let counts = try XCTUnwrap(json["counts"] as? [String: Any])
        XCTAssertEqual(Set(counts.keys), ["held-focus", "held-summary"])

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
                       #"{"app":"a","body":"b","close-reason":null,"closed":null,"decision":"held-focus","fate":"held-focus","id":3,"level":"passive","received":"1970-01-01T00:00:00.000Z","steps":[],"summary":"s"}"#)
    }
}
