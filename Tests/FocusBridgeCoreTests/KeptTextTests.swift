import FocusBridgeCore
import FocusBridgeTime
import Foundation
import XCTest

/// What the bridge keeps of a notification is cut to stated sizes, whatever an app sends.
final class KeptTextTests: XCTestCase {
    func testShortTextIsKeptWhole() {
        XCTAssertEqual(KeptText.cut("Slack", maxBytes: 256), "Slack")
        XCTAssertEqual(KeptText.cut("", maxBytes: 0), "")
    }

    func testCutsOnACharacterBoundary() {
        // "é" is two bytes; a cut at an odd byte count must not leave half of it.
        let text = String(repeating: "é", count: 10)
        XCTAssertEqual(KeptText.cut(text, maxBytes: 5), "éé")
        // "e" + combining acute is one character of three bytes: not split between its scalars.
        let combined = String(repeating: "e\u{301}", count: 4)
        XCTAssertEqual(KeptText.cut(combined, maxBytes: 4), "e\u{301}")
        // A family emoji (25 bytes) is dropped whole rather than cut into other emoji.
        XCTAssertEqual(KeptText.cut("ab👨‍👩‍👧‍👦", maxBytes: 10), "ab")
    }

    func testOneHugeCharacterIsCutAtAScalarBoundary() {
        let hostile = "a" + String(repeating: "\u{301}", count: 1 << 19)   // one character, 1 MiB
        let kept = KeptText.cut(hostile, maxBytes: 1001)
        XCTAssertEqual(kept.utf8.count, 1001, "a and 500 two-byte marks")
        XCTAssertTrue(kept.unicodeScalars.allSatisfy { $0 == "a" || $0 == "\u{301}" })
    }

    func testTheKeptSizes() {
        let mebibyte = String(repeating: "x", count: 1 << 20)
        XCTAssertEqual(AppIdentity(key: mebibyte, source: .appName).key.utf8.count, KeptText.maxAppKeyBytes)
        let resolved = AppIdentity.resolve(NotificationRequest(appName: mebibyte), process: nil)
        XCTAssertEqual(resolved.key.utf8.count, 256)
        let history = HistoryEntry(id: 1, app: mebibyte, summary: mebibyte, body: mebibyte, level: .active,
                                   decision: .delivered, received: Instant())
        XCTAssertEqual([history.app, history.summary, history.body].map(\.utf8.count), [256, 1024, 4096])
        let held = HeldNotification(id: 1, reason: .summary, app: mebibyte, summary: mebibyte, body: mebibyte,
                                    level: .active, relevance: 0, received: Instant(), holders: [Caller(connection: ":1.1")], processID: nil)
        XCTAssertEqual([held.app, held.summary, held.body].map(\.utf8.count), [256, 1024, 4096])
    }

    func testHeldPayloadBound() {
        XCTAssertTrue(HeldNotification.mayHold(payloadBytes: 1 << 20))
        XCTAssertFalse(HeldNotification.mayHold(payloadBytes: (1 << 20) + 1))
    }

    func testDuplicatesOfMegabyteBodiesAreRecognisedWithoutKeepingThem() {
        let start = Instant(timeIntervalSince1970: 1_800_000_000)
        let body = String(repeating: "b", count: 1 << 20)
        var tracker = DuplicateTracker()
        tracker.delivered(7, appKey: "App", summary: "s", body: body, at: start)
        XCTAssertEqual(tracker.original(appKey: "app", summary: "s", body: body, now: start + 1, window: 120), 7)
        // Same length, same first kilobytes, one byte different at the end: not a duplicate.
        let other = String(repeating: "b", count: (1 << 20) - 1) + "c"
        XCTAssertNil(tracker.original(appKey: "App", summary: "s", body: other, now: start + 1, window: 120))
        XCTAssertNotEqual(TextFingerprint(body), TextFingerprint(other))
        XCTAssertEqual(TextFingerprint(body).prefix.utf8.count, KeptText.maxFingerprintBytes)
    }

    func testFloodGateCountsABoundedNumberOfApps() {
        let start = Instant(timeIntervalSince1970: 1_800_000_000)
        var gate = FloodGate(limit: 20, window: 10)
        for index in 0..<10_000 { gate.delivered("app \(index)", at: start + Double(index) * 0.0001) }
        XCTAssertLessThanOrEqual(gate.countedApps, FloodGate.maxApps)
        // The most recent are still counted.
        for _ in 0..<19 { gate.delivered("app 9999", at: start + 2) }
        XCTAssertTrue(gate.isFlooding("app 9999", at: start + 2))
    }
}
