import FocusBridgeControl
import XCTest

/// `focusctl explain`: what it assumed for each option not given, said before the decision.
final class ExplanationTests: XCTestCase {
    func testExplainSaysWhatItAssumed() {
        XCTAssertEqual(Explanation.assumed(ExplainRequest(app: "Slack")), [
            "urgency: normal (no --urgency)", "category: none (no --category)",
            "summary and body: empty (no --summary, --body: no person is recognised, no duplicate found)",
            "actions: none (no --action)", "Focus: the one on now, if any (no --focus)", "time: now (no --at)"])
        XCTAssertEqual(Explanation.assumed(ExplainRequest(app: "Slack", urgency: "low", category: "im.received", summary: "Hi",
                                                          actions: ["a=A"], focus: "work", at: "10:00")), [])
        XCTAssertEqual(Explanation.assumed(ExplainRequest(app: "Slack", summary: "Hi", hints: ["byte:urgency:2"], focus: "work",
                                                          at: "10:00")),
                       ["category: none (no --category)", "actions: none (no --action)"])
    }
}
