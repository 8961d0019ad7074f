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
