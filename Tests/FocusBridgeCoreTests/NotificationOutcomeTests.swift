@testable import FocusBridgeCore
import FocusBridgeTime
import XCTest

/// What became of a notification once shown (focusctl(1), history's `outcome`), read from its
/// history row: its decision, a replay, its close reason, an action, a newer row with its ID.
final class NotificationOutcomeTests: XCTestCase {
    private let now = Instant(timeIntervalSince1970: 1_795_435_200)

    func testWhatEachRowCountsAs() {
        typealias Case = (DeliveryOutcome, Bool, UInt32?, Bool, Bool, NotificationOutcome?)
        let cases: [Case] = [
            (.delivered, false, nil, false, false, .open),
            (.delivered, false, 1, false, false, .expired),
            (.delivered, false, 2, false, false, .dismissed),
            (.delivered, false, 3, false, false, .closedByApp),
            (.delivered, false, 4, false, false, nil),           // the daemon went away: not known
            (.delivered, false, 2, true, false, .acted),         // acted on, then closed by the daemon
            (.delivered, false, nil, false, true, .replaced),
            (.delivered, false, nil, true, true, .acted),        // acted on before it was replaced
            (.coalesced, false, 1, false, false, .expired),      // a duplicate shown in its original's place
            (.heldFocus, false, 2, false, false, nil),           // held, dismissed in a digest: never shown as itself
            (.heldSummary, true, 2, false, false, .dismissed),   // held, then replayed as itself
            (.dropped, false, 2, false, false, nil),
            (.muted, false, 2, false, false, nil),
            (.collapsed, false, 2, false, false, nil),
            (.foreground, false, 1, false, false, nil),
        ]
        for (decision, replayed, reason, acted, replaced, wanted) in cases {
            XCTAssertEqual(NotificationOutcome.of(decision: decision, replayed: replayed, closeReason: reason, acted: acted,
                                                  replaced: replaced), wanted,
                           "\(decision) replayed \(replayed) reason \(reason.map(String.init) ?? "none") acted \(acted) replaced \(replaced)")
        }
        let entry = HistoryEntry(id: 1, app: "a", summary: "s", body: "", level: .active, decision: .delivered,
                                 received: now, closeReason: 2, acted: now)
        XCTAssertEqual(entry.outcome, .acted)
    }
}
