import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeJSON
import FocusBridgeTime
import XCTest

/// The fate reports of the control interface (`FateActionReport`, `FateStepReport`): an absent
/// value is written as `null`, never left out.
final class FateReportsTests: XCTestCase {
    func testFateReportsWriteNullNotNothing() {
        XCTAssertEqual(JSONText.encode(FateActionReport(action: "dismiss", ids: [], message: "m")),
                       #"{"action":"dismiss","copy":null,"digest":null,"ids":[],"message":"m","until":null}"#)
        XCTAssertEqual(JSONText.encode(FateStepReport(FateStep(.replayed, at: Instant(timeIntervalSince1970: 0)))),
                       #"{"at":"1970-01-01T00:00:00.000Z","detail":null,"number":null,"step":"replayed"}"#)
    }
}
