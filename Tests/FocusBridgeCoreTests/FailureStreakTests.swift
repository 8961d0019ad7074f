import FocusBridgeCore
import XCTest

final class FailureStreakTests: XCTestCase {
    /// A thousand failures are reported once, and the recovery once, with the count.
    func testOneReportPerStreak() {
        var streak = FailureStreak()
        XCTAssertNil(streak.succeeded(), "nothing to report without failures")
        XCTAssertTrue(streak.failed())
        for _ in 1..<1_000 { XCTAssertFalse(streak.failed()) }
        XCTAssertEqual(streak.succeeded(), 1_000)
        XCTAssertNil(streak.succeeded())
        XCTAssertTrue(streak.failed(), "a new streak is reported again")
    }
}
