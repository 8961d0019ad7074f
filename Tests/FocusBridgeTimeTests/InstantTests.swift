import FocusBridgeTime
import Foundation
import XCTest

/// `Instant` replaces Foundation's `Date` in the daemon; the Focus and share state written by
/// earlier versions (JSON of `Date`) must read back as the same instants.
final class InstantTests: XCTestCase {
    func testReadsWhatFoundationsDateWrote() throws {
        let seconds = 1_795_000_000.25
        let written = try JSONEncoder().encode([Date(timeIntervalSince1970: seconds)])
        let read = try JSONDecoder().decode([Instant].self, from: written)
        XCTAssertEqual(read, [Instant(timeIntervalSince1970: seconds)])
    }

    func testWritesWhatFoundationsDateReads() throws {
        let instant = Instant(timeIntervalSince1970: 1_700_000_123.5)
        let read = try JSONDecoder().decode([Date].self, from: try JSONEncoder().encode([instant]))
        XCTAssertEqual(read, [Date(timeIntervalSince1970: 1_700_000_123.5)])
    }

    func testNowIsTheWallClock() {
        let foundation = Date().timeIntervalSince1970
        XCTAssertLessThan(abs(Instant.now.timeIntervalSince1970 - foundation), 5)
    }

    func testArithmetic() {
        let start = Instant(timeIntervalSince1970: 100)
        XCTAssertEqual(start + 5, Instant(timeIntervalSince1970: 105))
        XCTAssertEqual((start + 5) - start, 5)
        XCTAssertTrue(start < start + 0.001)
        XCTAssertEqual(Instant.distantPast.timeIntervalSince1970, Date.distantPast.timeIntervalSince1970)
        XCTAssertEqual(Instant.distantFuture.timeIntervalSince1970, Date.distantFuture.timeIntervalSince1970)
    }
}
