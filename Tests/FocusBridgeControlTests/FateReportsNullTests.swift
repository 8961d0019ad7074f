import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeJSON
import FocusBridgeTime
import XCTest

/// The fate reports (explain ID, its `then`, a step, what show/dismiss/snooze did) with every
/// optional absent: each is written as `null` (`@Nullable`), byte for byte the text focusctl
/// and scripts have always read.
final class FateReportsNullTests: XCTestCase {
    private let at = Instant(timeIntervalSince1970: 0)

    func testEveryAbsentValueIsWrittenAsNull() throws {
        var entry = HistoryEntry(id: 7, app: "mail", summary: "s", body: "b", level: .passive, decision: .heldFocus,
                                 received: at)
        let decision = Policy.decide(NotificationRequest(appName: "Mail", summary: "s", body: "b"),
                                     app: AppIdentity(key: "Mail", source: .appName), context: PolicyContext(now: at))
        XCTAssertEqual(JSONText.encode(ExplainIDReport(entry, now: decision)),
                       #"{"app":"mail","app-source":null,"body":"b","close-reason":null,"closed":null,"decision":"held-focus","fate":"held-focus","id":7,"level":"passive","now":{"actions":[{"key":"x-focus-quick.mute-hour","label":"Mute 1 Hour"}],"app":"Mail","app-source":"app_name","communication":null,"decision":"delivered","level":"active","preview-hidden":false,"suppress-sound":false,"trace":["app: Mail (from the app_name); no [apps] rule","level: active (rule 7: no other rule applies)","actions: quick actions added after the app's: \"Mute 1 Hour\"","presentation: urgency 1","delivery: delivered"],"urgency":1,"via":null},"received":"1970-01-01T00:00:00.000Z","steps":[],"summary":"s","then":null,"via":null}"#)
        entry.kept = KeptRequest(appName: "Mail", appSource: "app-name")
        XCTAssertEqual(JSONText.encode(try XCTUnwrap(ExplainIDReport(entry, now: decision).then)),
                       #"{"actions":[],"app-name":"Mail","door":"org.freedesktop.Notifications","focus":null,"hints":[],"screen-locked":false,"silent":false,"trace":[]}"#)
        XCTAssertEqual(JSONText.encode(FateStepReport(FateStep(.inDigest, at: at))),
                       #"{"at":"1970-01-01T00:00:00.000Z","detail":null,"number":null,"step":"in-digest"}"#)
        XCTAssertEqual(JSONText.encode(FateActionReport(action: "show", ids: [], message: "m")),
                       #"{"action":"show","copy":null,"digest":null,"ids":[],"message":"m","until":null}"#)
    }
}
