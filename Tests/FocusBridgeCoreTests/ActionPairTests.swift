import FocusBridgeCore
import XCTest

final class ActionPairTests: XCTestCase {
    func testPairsInOrder() {
        XCTAssertEqual(ActionPair.pairs(from: ["default", "Open", "yes", "Yes"]),
                       [ActionPair(key: "default", label: "Open"), ActionPair(key: "yes", label: "Yes")])
    }

    func testAnOddLengthArrayLosesItsTrailingElement() {
        XCTAssertEqual(ActionPair.pairs(from: ["a", "A", "b"]), [ActionPair(key: "a", label: "A")])
        XCTAssertEqual(ActionPair.pairs(from: ["lonely"]), [])
        XCTAssertEqual(ActionPair.pairs(from: []), [])
    }

    func testFlattenRoundTrips() {
        let flat = ["k1", "L1", "k2", "L2"]
        XCTAssertEqual(ActionPair.flatten(ActionPair.pairs(from: flat)), flat)
    }
}
