import FocusBridgeConfig
import FocusBridgeCore
import XCTest

/// The keys of quick actions and choices in the file: `[general] explain-time-sensitive`,
/// `quick-actions`, and per app `marketing`, `quick-actions`; each app key's line kept for
/// `focusctl apps`.
final class ConfigQuickActionsTests: XCTestCase {
    func testTheKeysAreReadWithTheirLines() throws {
        let configuration = try Configuration.parse("""
            [general]
            explain-time-sensitive = false
            quick-actions = ["turn-off-time-sensitive"]

            [apps."Shop"]
            marketing = true
            quick-actions = []
            """, path: "/c.toml")
        XCTAssertFalse(configuration.policy.general.explainTimeSensitive)
        XCTAssertEqual(configuration.policy.general.quickActions, [.turnOffTimeSensitive])
        let shop = configuration.policy.rule(forApp: "shop")
        XCTAssertTrue(shop.marketing)
        XCTAssertEqual(shop.quickActions, [])
        XCTAssertEqual(shop.origin(of: "marketing"), .config(line: 6))
        XCTAssertEqual(shop.origin(of: "delivery"), .byDefault)
    }

    func testDefaults() throws {
        let policy = try Configuration.parse("", path: "/c.toml").policy
        XCTAssertTrue(policy.general.explainTimeSensitive)
        XCTAssertEqual(policy.general.quickActions, [.muteHour, .turnOffTimeSensitive])
        XCTAssertFalse(policy.rule(forApp: "x").marketing)
    }

    func testBadValuesAreEachToldAtTheirPlace() {
        XCTAssertThrowsError(try Configuration.parse("""
            [general]
            quick-actions = ["mute-hour", "mute-hr", 3]
            [apps.A]
            marketing = "yes"
            """, path: "/c.toml")) { error in
            let lines = (error as! ConfigError).lines
            XCTAssertEqual(lines, [
                "/c.toml:2:42: `quick-actions` must be an array of strings, not one with an integer",
                "/c.toml:4:13: `marketing` must be true or false, not a string",
            ])
        }
        XCTAssertThrowsError(try Configuration.parse("[general]\nquick-actions = [\"mute-hr\"]\n", path: "/c.toml")) { error in
            XCTAssertEqual((error as! ConfigError).lines,
                           ["/c.toml:2:18: `quick-actions` takes \"mute-hour\", \"turn-off-time-sensitive\", \"snooze-hour\", not \"mute-hr\"; did you mean \"mute-hour\"?"])
        }
    }
}
