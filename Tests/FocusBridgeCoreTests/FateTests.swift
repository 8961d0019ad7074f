import FocusBridgeCore
import FocusBridgeJSON
import FocusBridgeTime
import Foundation
import XCTest

/// The fate model: one line per notification, the end from its close reason, and what history
/// keeps for explain ID, bounded.
final class FateTests: XCTestCase {
    private let at = Instant(timeIntervalSince1970: 1_800_000_000)
    private let time: (Instant) -> String = { _ in "18:02" }

    func testTheLineOfEachFate() {
        XCTAssertEqual(Fate.line(decision: .heldFocus, steps: [], closeReason: nil, time: time), "held-focus")
        XCTAssertEqual(Fate.line(decision: .heldFocus, steps: [FateStep(.inDigest, at: at, number: 12)], closeReason: nil,
                                 time: time), "held-focus → in digest 12 at 18:02")
        XCTAssertEqual(Fate.line(decision: .heldSummary,
                                 steps: [FateStep(.inDigest, at: at, number: 12), FateStep(.replayed, at: at, detail: "Show All")],
                                 closeReason: 2, time: time),
                       "held-summary → in digest 12 at 18:02 → replayed by Show All → dismissed")
        XCTAssertEqual(Fate.line(decision: .delivered, steps: [FateStep(.daemonQuiet, at: at, detail: "dunst paused")],
                                 closeReason: 1, time: time), "delivered (dunst paused) → expired")
        XCTAssertEqual(Fate.line(decision: .delivered, steps: [], closeReason: 3, time: time), "delivered → closed by the app")
        XCTAssertEqual(Fate.line(decision: .delivered, steps: [FateStep(.shownAgain, at: at, number: 40)], closeReason: nil,
                                 time: time), "delivered → shown again as 40")
        XCTAssertEqual(Fate.line(decision: .delivered, steps: [FateStep(.copyOf, at: at, number: 7)], closeReason: nil,
                                 time: time), "delivered → copy of 7")
        XCTAssertEqual(Fate.line(decision: .delivered, steps: [FateStep(.muted, at: at)], closeReason: nil, time: time),
                       "delivered → muted")
        XCTAssertEqual(Fate.line(decision: .dropped, steps: [], closeReason: 2, time: time), "dropped",
                       "a dropped one is told it was dismissed as it is handed out: no end of its own")
        XCTAssertEqual(Fate.line(decision: .delivered, steps: [FateStep(.shownAgain, at: at + 10, number: 40)], closeReason: 2,
                                 closed: at + 5, time: time), "delivered → dismissed → shown again as 40",
                       "a copy shown after the end comes after it")
        XCTAssertEqual(Fate.line(decision: .heldFocus, steps: [FateStep(.replayed, at: at + 1, detail: "Show All")],
                                 closeReason: 1, closed: at + 5, time: time), "held-focus → replayed by Show All → expired")
        XCTAssertEqual(Fate.end(4), "closed (undefined: the daemon went away or the bridge gave it up)")
        XCTAssertEqual(Fate.end(77), "closed (reason 77)")
        XCTAssertEqual(Fate.line(decision: .delivered, steps: [], closeReason: 3, own: true, time: time),
                       "delivered → closed by focus-bridge", "a digest acted on is closed by the bridge")
        // a stored time no calendar can say is written as "?", never trapped on
        XCTAssertEqual(Fate.localTime(Instant(timeIntervalSince1970: 1e300)), "?")
        XCTAssertEqual(Fate.line(decision: .heldFocus, steps: Fate.decode("in-digest\t1e300\t3\t"), closeReason: nil,
                                 time: Fate.localTime), "held-focus → in digest 3 at ?")
    }

    func testStoredStepsRoundTripAndStayBounded() {
        let steps = [FateStep(.inDigest, at: at, number: 12), FateStep(.replayed, at: at + 0.5, detail: "the end of work"),
                     FateStep(.daemonQuiet, at: at + 1, detail: "dunst paused")]
        XCTAssertEqual(Fate.decode(Fate.encode(steps)), steps)
        var many: [FateStep] = []
        for n in 0..<20 { many = Fate.appending(FateStep(.shownAgain, at: at, number: UInt32(n)), to: many) }
        XCTAssertEqual(many.count, Fate.maxSteps)
        XCTAssertEqual(many.map(\.number), [0, 1, 2, 3, 4, 5, 6, 19])
        let long = FateStep(.replayed, at: at, detail: String(repeating: "x", count: 10_000))
        XCTAssertEqual(long.detail?.utf8.count, Fate.maxDetailBytes)
    }

    func testKeptRequestIsBoundedAndLeavesBinaryHintsOut() {
        var hints: [String: HintValue] = ["image-data": .other(signature: "(iiibiiay)"), "category": .string("im.received"),
                                          "urgency": .integer(2), "x-focus-relevance": .double(0.5),
                                          "transient": .bool(true), "a:b": .string("no"),
                                          "x-list": .strings(["one", "two,three", "four"])]
        for n in 0..<100 { hints["x-big-\(n)"] = .string(String(repeating: "v", count: 5000)) }
        let notification = NotificationRequest(appName: "Slack", summary: "s", body: "b",
                                               actions: Array(repeating: ["k", String(repeating: "L", count: 500)], count: 50)
                                                   .flatMap { $0 },
                                               hints: hints)
        let decision = Policy.decide(notification, app: AppIdentity(key: "Slack", source: .appName), context: PolicyContext())
        let kept = KeptRequest(notification, decision: decision, context: PolicyContext(), focusName: nil)
        XCTAssertFalse(kept.hints.contains { $0.contains("image-data") || $0.contains("a:b") }, "\(kept.hints)")
        XCTAssertTrue(kept.hints.contains("string:category:im.received"))
        XCTAssertTrue(kept.hints.contains("byte:urgency:2"))
        XCTAssertTrue(kept.hints.contains("double:x-focus-relevance:0.5"), "the hints a decision reads come first")
        XCTAssertEqual(KeptRequest.hintTexts(["x-list": .strings(["one", "two,three", "four"])]), ["strings:x-list:one,four"])
        XCTAssertLessThanOrEqual(kept.hints.joined().utf8.count, KeptRequest.maxHintBytes)
        XCTAssertLessThanOrEqual(kept.hints.count, KeptRequest.maxHints)
        XCTAssertEqual(kept.actions.count, KeptRequest.maxActions)
        XCTAssertLessThanOrEqual(kept.actions.map(\.utf8.count).max() ?? 0, KeptRequest.maxActionBytes * 2 + 1)
        XCTAssertNil(kept.focus)
        XCTAssertLessThanOrEqual((kept.stored ?? "").utf8.count, 12 * 1024, "one history row keeps at most about 12 KiB of it")
        // read back, it is decided as it was
        let again = kept.notification(summary: "s", body: "b")
        XCTAssertEqual(again.hints["category"], .string("im.received"))
        XCTAssertEqual(Policy.decide(again, app: kept.app(key: "Slack"), context: PolicyContext()).level, decision.level)
    }

}

extension FateTests {
    func testTheStoredFormIsJSONThatReadsBack() throws {
        let kept = KeptRequest(appName: "Sl\"ack\\", appSource: "app_name", appIcon: "icon\u{1}", actions: ["k=L\n", "é=ü"],
                               hints: ["string:category:im.received", "string:x-q:\"quoted\"\ttab"], replacesID: 4,
                               expireTimeout: -1, focus: "wörk", silent: true, screenLocked: false,
                               trace: ["a \u{7f} line", "🙂"])
        let text = try XCTUnwrap(kept.stored)
        XCTAssertEqual(KeptRequest.read(text), kept)
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var none = kept
        none.focus = nil
        XCTAssertEqual(KeptRequest.read(none.stored), none)
    }
}

extension FateTests {
    func testASnoozeSaysUntilWhenAndThatItWasShownAgain() {
        let at = Instant(timeIntervalSince1970: 1_800_000_000)
        let steps = [FateStep(.snoozed, at: at, detail: String(at.addingTimeInterval(3600).timeIntervalSince1970)),
                     FateStep(.unsnoozed, at: at.addingTimeInterval(3600))]
        let time: (Instant) -> String = { "t\(Int($0.timeIntervalSince1970) - 1_800_000_000)" }
        XCTAssertEqual(Fate.line(decision: .delivered, steps: steps, closeReason: 2, closed: at.addingTimeInterval(4000),
                                 time: time),
                       "delivered → snoozed until t3600 → shown again → dismissed")
        let held = [steps[0], FateStep(.unsnoozed, at: at.addingTimeInterval(3600), detail: "held for Work")]
        XCTAssertEqual(Fate.line(decision: .delivered, steps: held, closeReason: nil, time: time),
                       "delivered → snoozed until t3600 → held for Work")
        // A stored end that cannot be read still says what happened.
        XCTAssertEqual(Fate.words(FateStep(.snoozed, at: at, detail: "soon"), time: time), "snoozed")
    }
}
