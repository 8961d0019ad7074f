import FocusBridgeConfig
import FocusBridgeCore
import XCTest

final class SessionNamesTests: XCTestCase {
    func testWellKnownBusNames() {
        for name in ["ca.desrt.dconf", "org.a11y.Bus", "org.freedesktop.portal.Desktop", "a.b", "org._x.y-z1"] {
            XCTAssertTrue(SessionNames.isWellKnownBusName(name), name)
        }
        for name in ["", "dconf", ":1.42", "org..x", ".org.x", "org.x.", "org.1x", "org.x y", "org.ä.x",
                     "org." + String(repeating: "x", count: 260)] {
            XCTAssertFalse(SessionNames.isWellKnownBusName(name), name)
        }
    }

    func testTheBridgesOwnNamesAndPassthroughNamesAreRefused() {
        XCTAssertNil(SessionNames.problem(with: "ca.desrt.dconf", passthroughNames: []))
        for name in ["org.freedesktop.DBus", "org.freedesktop.Notifications", "org.focusbridge.FocusBridge"] {
            XCTAssertNotNil(SessionNames.problem(with: name, passthroughNames: []), name)
        }
        XCTAssertNotNil(SessionNames.problem(with: "org.erikreider.swaync.cc", passthroughNames: ["org.erikreider.swaync.cc"]))
    }

    func testTheDefaultsWhenTheKeyIsAbsentAndAReplacedList() throws {
        XCTAssertEqual(try Configuration.parse("[downstream]\nmode = \"spawn\"\n", path: "c.toml").downstream.sessionNames,
                       SessionNames.defaults)
        XCTAssertTrue(SessionNames.defaults.contains("ca.desrt.dconf") && SessionNames.defaults.contains("org.a11y.Bus"))
        let replaced = try Configuration.parse("[downstream]\nsession-names = [\"org.example.A\"]\n", path: "c.toml")
        XCTAssertEqual(replaced.downstream.sessionNames, ["org.example.A"])
        XCTAssertEqual(try Configuration.parse("[downstream]\nsession-names = []\n", path: "c.toml").downstream.sessionNames, [])
    }

    func testBadSessionNamesAreConfigErrorsWithTheirLine() {
        let cases: [(String, String)] = [
            ("[downstream]\nmode = \"spawn\"\nsession-names = [\"dconf\"]\n", "not a well-known bus name"),
            ("[downstream]\nmode = \"spawn\"\nsession-names = [\"org.freedesktop.Notifications\"]\n", "cannot be relayed"),
            ("[downstream]\npassthrough-names = [\"org.x.Y\"]\nsession-names = [\"org.x.Y\"]\n", "passthrough-names"),
            ("[downstream]\nmode = \"spawn\"\nsession-names = \"ca.desrt.dconf\"\n", "array of strings"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try Configuration.parse(text, path: "c.toml"), text) { error in
                let description = "\(error)"
                XCTAssertTrue(description.hasPrefix("c.toml:3:17:"), description)  // at the value itself
                XCTAssertTrue(description.contains(message), "\(description) should say \(message)")
            }
        }
    }
}
