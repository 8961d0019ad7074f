import FocusBridgeTime
import Foundation
import XCTest
@testable import FocusBridgeCore

/// Times from outside never trap: `Timestamp.string` is total, durations and stored instants
/// are bounded (`focus on --for 99999999999999d` must not kill the bridge).
final class TimeBoundsTests: XCTestCase {
    func testTimestampStringIsTotal() {
        let dates: [Instant] = [
            Instant(timeIntervalSince1970: .nan), Instant(timeIntervalSince1970: .infinity),
            Instant(timeIntervalSince1970: -.infinity), Instant(timeIntervalSince1970: 1e300),
            Instant(timeIntervalSince1970: -1e300), Instant(timeIntervalSince1970: 8.64e18), .distantFuture, .distantPast,
            Instant(timeIntervalSince1970: Double(Int64.max) / 1000), Instant(timeIntervalSince1970: -Double(Int64.max) / 1000),
        ]
        for date in dates {
            let text = Timestamp.string(date)
            XCTAssertEqual(text.count, 24, "\(date.timeIntervalSince1970): \(text)")
            XCTAssertNotNil(Timestamp.parse(text), text)
        }
        XCTAssertEqual(Timestamp.string(Instant(timeIntervalSince1970: .infinity)), "9999-12-31T23:59:59.999Z")
        XCTAssertEqual(Timestamp.string(Instant(timeIntervalSince1970: -.infinity)), "0001-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp.string(Instant(timeIntervalSince1970: .nan)), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp.string(Instant(timeIntervalSince1970: 1_763_845_200.123)), "2025-11-22T21:00:00.123Z")
    }

    func testDurationsAreBounded() {
        XCTAssertTrue(TimeBounds.isAcceptableDuration(90 * 60))
        XCTAssertTrue(TimeBounds.isAcceptableDuration(366 * 86_400))
        for seconds in [0, -1, 366 * 86_400 + 1, 1e300, .infinity, -.infinity, .nan] as [Double] {
            XCTAssertFalse(TimeBounds.isAcceptableDuration(seconds), "\(seconds)")
        }
        XCTAssertEqual(DurationText.seconds("366d"), 366 * 86_400)
        XCTAssertNil(DurationText.seconds(String(repeating: "9", count: 400) + "s"), "not finite")
        XCTAssertEqual(DurationText.seconds("99999999999999d"), 99_999_999_999_999 * 86_400) // refused by the caller
    }

    func testStoredInstants() {
        XCTAssertEqual(TimeBounds.storedInstant("1763845200.5"), Instant(timeIntervalSince1970: 1_763_845_200.5))
        for text in ["nan", "inf", "-inf", "1e300", "-1", "", "garbage", "253402300800"] {
            XCTAssertNil(TimeBounds.storedInstant(text), text)
        }
    }

    func testStoredManualFocusIsPlausible() {
        let now = Instant(timeIntervalSince1970: 1_763_845_200)
        XCTAssertTrue(ManualFocus(state: .on("work"), since: now, until: nil).isPlausible)
        XCTAssertTrue(ManualFocus(state: .off, since: now, until: now.addingTimeInterval(3_600)).isPlausible)
        XCTAssertFalse(ManualFocus(state: .on("work"), since: now, until: now.addingTimeInterval(-1)).isPlausible)
        XCTAssertFalse(ManualFocus(state: .on("work"), since: now, until: Instant(timeIntervalSince1970: 1e300)).isPlausible)
        XCTAssertFalse(ManualFocus(state: .on("work"), since: Instant(timeIntervalSince1970: .nan), until: nil).isPlausible)
        XCTAssertFalse(ManualFocus(state: .on("work"), since: Instant(timeIntervalSince1970: -5), until: nil).isPlausible)
    }
}
