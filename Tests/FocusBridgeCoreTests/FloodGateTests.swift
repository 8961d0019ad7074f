import FocusBridgeCore
import FocusBridgeTime
import Foundation
import XCTest

final class FloodGateTests: XCTestCase {
    private let start = Instant(timeIntervalSince1970: 1_800_000_000)

    func testTwentyInTenSecondsThenCollapse() {
        var gate = FloodGate(limit: 20, window: 10)
        for index in 0..<20 {
            XCTAssertFalse(gate.isFlooding("Spam", at: start + Double(index) * 0.1))
            gate.delivered("Spam", at: start + Double(index) * 0.1)
        }
        XCTAssertTrue(gate.isFlooding("spam", at: start + 3), "the 21st within ten seconds, any case")
        XCTAssertFalse(gate.isFlooding("Other", at: start + 3), "per app")
        XCTAssertFalse(gate.isFlooding("Spam", at: start + 10.1), "the window moves on")
        XCTAssertFalse(FloodGate(limit: 0).isFlooding("Spam", at: start), "0 turns it off")
    }

    func testThePolicyCollapsesAllButCriticalAndUpdates() {
        var gate = FloodGate(limit: 2, window: 10)
        gate.delivered("Spam", at: start)
        gate.delivered("Spam", at: start)
        let app = AppIdentity(key: "Spam", source: .appName)
        let context = PolicyContext(now: start + 1, flood: gate)
        let collapsed = Policy.decide(NotificationRequest(summary: "x"), app: app, context: context)
        XCTAssertEqual(collapsed.outcome, .collapsed)
        XCTAssertTrue(collapsed.trace.last!.contains("more than 2 in 10 s"))
        XCTAssertEqual(Policy.decide(NotificationRequest(replacesID: 9), app: app, context: context).outcome, .delivered,
                       "an update replaces, it does not pile up")
        var settings = PolicySettings()
        var entitled = AppRule()
        entitled.critical = true
        settings.apps["spam"] = entitled
        var criticalContext = context
        criticalContext.settings = settings
        XCTAssertEqual(Policy.decide(NotificationRequest(hints: ["urgency": .integer(2)]), app: app, context: criticalContext).outcome,
                       .delivered)
    }

    func testManyAppNamesDoNotGrowMemoryForever() {
        var gate = FloodGate(limit: 5, window: 1)
        for index in 0..<5000 { gate.delivered("app\(index)", at: start + Double(index)) }
        XCTAssertFalse(gate.isFlooding("app1", at: start + 5000))
    }
}
