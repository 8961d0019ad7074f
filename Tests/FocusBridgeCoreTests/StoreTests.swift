import FocusBridgeCore
import FocusBridgeStore
import Foundation
import XCTest

final class StoreTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "focus-bridge-store-\(UUID().uuidString)/state"
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent)
    }

    func testTheStateIsPrivateToTheUser() throws {
        let store = try Store(directory: directory)
        try store.setIDHighWater(5)
        let folder = try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int
        let file = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
        XCTAssertEqual(folder, 0o700)
        XCTAssertEqual(file, 0o600)
    }

    func testHistoryNewestFirstFilteredByAppAnyCase() throws {
        let store = try Store(directory: directory)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        try store.record([
            HistoryEntry(id: 1, app: "Slack", summary: "one", body: "", level: .active, decision: .delivered, received: start),
            HistoryEntry(id: 2, app: "mail", summary: "two", body: "", level: .active, decision: .delivered, received: start + 1),
            HistoryEntry(id: 3, app: "slack", summary: "three", body: "", level: .active, decision: .delivered, received: start + 2),
        ])
        XCTAssertEqual(try store.history(limit: 10).map(\.id), [3, 2, 1])
        XCTAssertEqual(try store.history(limit: 2).map(\.id), [3, 2])
        XCTAssertEqual(try store.history(limit: 10, app: "SLACK").map(\.id), [3, 1])
        try store.markClosed([(id: 2, reason: 3, at: start + 5)])
        let closed = try store.history(limit: 10, app: "mail")[0]
        XCTAssertEqual(closed.closeReason, 3)
        XCTAssertEqual(closed.closed, start + 5)
        XCTAssertEqual(try store.countsByDecision()[.delivered], 3)
    }

    func testSettingsSurviveReopening() throws {
        try Store(directory: directory).setIDHighWater(2048)
        XCTAssertEqual(try Store(directory: directory).idHighWater(), 2048)
    }

    func testLongTextIsCutInHistory() throws {
        let entry = HistoryEntry(id: 1, app: "a", summary: "s", body: String(repeating: "x", count: 1 << 20),
                                 level: .active, decision: .delivered, received: Date())
        XCTAssertEqual(entry.body.count, HistoryEntry.maxTextLength)
    }
}

final class TimestampTests: XCTestCase {
    func testRoundTripWithMilliseconds() {
        for seconds in [0.0, 1_800_000_000.123, 1_800_000_000.999, 951_782_400.5 /* 2000-02-29 */] {
            let date = Date(timeIntervalSince1970: seconds)
            let text = Timestamp.string(date)
            XCTAssertEqual(text.count, 24, text)
            XCTAssertEqual(Timestamp.parse(text)!.timeIntervalSince1970, (seconds * 1000).rounded(.down) / 1000, accuracy: 0.0005)
        }
        XCTAssertEqual(Timestamp.string(Date(timeIntervalSince1970: 1_800_000_000.123)), "2027-01-15T08:00:00.123Z")
        XCTAssertEqual(Timestamp.parse("2026-11-21T21:00:00Z"), Date(timeIntervalSince1970: 1_795_294_800))
        XCTAssertNil(Timestamp.parse("yesterday"))
        XCTAssertNil(Timestamp.parse("2026-11-21 21:00:00.000Z"))
    }

    func testReportsWriteNullNotNothing() {
        let entry = HistoryEntry(id: 3, app: "a", summary: "s", body: "b", level: .passive, decision: .heldFocus,
                                 received: Date(timeIntervalSince1970: 0))
        XCTAssertEqual(JSONText.encode(HistoryReport(entry)),
                       #"{"app":"a","body":"b","close-reason":null,"closed":null,"decision":"held-focus","id":3,"level":"passive","received":"1970-01-01T00:00:00.000Z","summary":"s"}"#)
    }
}
