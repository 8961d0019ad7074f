import FocusBridgeControl
@testable import FocusBridgeCore
import FocusBridgeTime
import Foundation
import XCTest

/// `focusctl explain --at`: `HH:MM` today and the ISO 8601 date and times Foundation's
/// `ISO8601DateFormatter` reads, read by Core and compared with Foundation.
final class DateTimeTextTests: XCTestCase {
    private let berlin = zone("Europe/Berlin")

    /// What Foundation makes of `text`: the internet date-time, else a local date and time.
    private func foundation(_ text: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime], [.withFullDate, .withTime, .withColonSeparatorInTime]] {
            formatter.formatOptions = options
            formatter.timeZone = TimeZone(identifier: "Europe/Berlin")!
            if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        }
        return nil
    }

    private func moment(_ at: String) -> Double? {
        try? ExplainRequest(app: "a", at: at).moment(now: Instant(timeIntervalSince1970: 1_795_291_200), timeZone: berlin)
            .timeIntervalSince1970
    }

    func testTheFormsFoundationReadReadTheSame() {
        for text in ["2026-11-21T21:00:00Z", "2026-11-21T21:00:00+01:00", "2026-11-21T21:00:00+0100", "2026-11-21T21:00:00+01",
                     "2026-11-21T21:00:00-05:30", "2026-11-21T21:00:00", "2026-06-01T08:15:42", "2026-03-29T02:30:00",
                     "2038-07-01T12:00:00", "1999-12-31T23:59:59Z", "2024-02-29T10:00:00"] {
            XCTAssertNotNil(moment(text), text)
            XCTAssertEqual(moment(text), foundation(text), text)
        }
    }

    func testHoursAndMinutesAreToday() {
        // 2026-11-21 21:00 CET is `now`; 07:30 that day is 06:30 UTC.
        XCTAssertEqual(moment("07:30"), 1_795_242_600)
        XCTAssertEqual(moment("7:30"), 1_795_242_600)
        let now = Instant(timeIntervalSince1970: 1_795_291_200)
        XCTAssertEqual(try ExplainRequest(app: "a").moment(now: now, timeZone: berlin), now, "no --at: now")
    }

    /// Where Foundation's reading is wrong, Core's is strict or right: a fraction with a zone
    /// (Foundation drops the zone and reads local time), days and hours that do not exist,
    /// text after the zone; the repeated hour is its first occurrence, as for `HH:MM`.
    func testStricterThanFoundation() {
        XCTAssertEqual(moment("2026-11-21T21:00:00.250Z"), 1_795_294_800.25)
        XCTAssertEqual(moment("2026-11-21T21:00:00.5"), 1_795_291_200.5)
        XCTAssertEqual(moment("2026-10-25T02:30:00"), 1_792_888_200, "02:30 CEST, the first")
        for text in ["2026-02-30T10:00:00", "2026-11-21T24:00:00", "2026-11-21T21:00:00Zjunk", " 2026-11-21T21:00:00Z",
                     "2026-1-2T3:04:05Z", "2026-11-21T21:00:00+25:00", "2026-11-21T21:00:00GMT", "2026-11-21 21:00:00Z",
                     "2026-11-21", "2026-11-21T21:00", "20261121T21:00:00", "2026-13-01T00:00:00", "2026-11-21T21:00:60",
                     "2026-11-21T21:00:00.", "2026-11-21T21:00:00+01:0", "", "25:00", "noon"] {
            XCTAssertNil(moment(text), text)
        }
    }
}
