import FocusBridgeControl
import FocusBridgeJSON
import Foundation
import XCTest

/// The answer of FocusOn and FocusOff: the status's keys and what the Focus that ended held.
final class FocusChangeReportTests: XCTestCase {
    func testFocusChangeReportKeepsTheStatusKeys() throws {
        let status = """
            {"version":"0.1.0","silent":false,"focus":null,"next-summary":null,
             "downstream":{"mode":"log","target":"standard output","connected":true,"daemon":null,"problem":null},
             "counts":{"received":1,"delivered":1,"queued":0,"in-flight":0,"held-focus":0,"held-summary":0},
             "mutes":[]}
            """
        let decoded = try JSONText.decode(StatusReport.self, from: status)
        let report = FocusChangeReport(status: decoded, ended: .init(name: "work", held: 3, afterFocus: "digest"))
        let text = JSONText.encode(report)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["version", "silent", "focus", "next-summary", "downstream", "counts", "mutes", "windows", "ended"])
        let ended = try XCTUnwrap(object["ended"] as? [String: Any])
        XCTAssertEqual(Set(ended.keys), ["name", "held", "after-focus"])
        XCTAssertEqual(ended["name"] as? String, "work")
        XCTAssertEqual((ended["held"] as? NSNumber)?.intValue, 3)
        XCTAssertEqual(ended["after-focus"] as? String, "digest")
        XCTAssertEqual(try JSONText.decode(FocusChangeReport.self, from: text), report)
        XCTAssertEqual(try JSONText.decode(StatusReport.self, from: text), decoded, "a reader of Status reads it too")
        XCTAssertTrue(JSONText.encode(FocusChangeReport(status: decoded, ended: nil)).contains("\"ended\":null"))
    }
}
