import FocusBridgeCore
import FocusBridgeTime
import XCTest

/// Repeated calls (focus-bridge.toml(5), `repeated-calls`): a second call from the same person
/// within 3 minutes breaks through a Focus, as on iOS.
final class RepeatedCallsTests: XCTestCase {
    private let start = Instant(timeIntervalSince1970: 1_800_000_000)
    private let app = AppIdentity(key: "org.example.Phone", source: .desktopEntry)

    private func call(from person: String, category: String = "call.incoming") -> NotificationRequest {
        NotificationRequest(appName: "Phone", summary: person, hints: ["category": .string(category)])
    }

    private func decide(_ request: NotificationRequest, at seconds: Double, tables: DeliveryTables,
                        repeated: Bool = true) -> Decision {
        var context = PolicyContext(now: Instant(timeIntervalSince1970: start.timeIntervalSince1970 + seconds))
        context.tables = tables
        var focus = FocusProfile(name: "work")
        focus.repeatedCalls = repeated
        focus.timeSensitive = false  // a call is time-sensitive: only a Focus that holds those holds calls
        context.activeFocus = focus
        return Policy.decide(request, app: app, context: context)
    }

    func testASecondCallFromThePersonWithinThreeMinutesBreaksThrough() {
        let tables = DeliveryTables()
        XCTAssertEqual(decide(call(from: "Ada"), at: 0, tables: tables).outcome, .heldFocus)
        tables.called("Ada", at: start)
        let again = decide(call(from: "ada"), at: 120, tables: tables)
        XCTAssertEqual(again.outcome, .delivered, "the same person (any case) two minutes later")
        XCTAssertTrue(again.trace.contains { $0.contains("a repeated call: ada called 120 s ago") }, "\(again.trace)")
        XCTAssertEqual(decide(call(from: "Grace"), at: 120, tables: tables).outcome, .heldFocus, "another person")
        XCTAssertEqual(decide(call(from: "Ada"), at: 181, tables: tables).outcome, .heldFocus, "past 3 minutes")
        XCTAssertEqual(decide(call(from: "Ada", category: "im.received"), at: 60, tables: tables).outcome, .heldFocus,
                       "a message is not a call")
        XCTAssertEqual(decide(call(from: "Ada"), at: 60, tables: tables, repeated: false).outcome, .heldFocus,
                       "repeated-calls = false")
    }

    func testTheTableIsBounded() {
        var calls = RecentCalls()
        for n in 0..<(RecentCalls.capacity * 3) {
            calls.called("person \(n)", at: Instant(timeIntervalSince1970: Double(n)))
        }
        XCTAssertLessThanOrEqual(calls.count, RecentCalls.capacity)
        XCTAssertNotNil(calls.calledRecently("person \(RecentCalls.capacity * 3 - 1)",
                                             now: Instant(timeIntervalSince1970: Double(RecentCalls.capacity * 3))))
    }
}
