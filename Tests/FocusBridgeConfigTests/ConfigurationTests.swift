import FocusBridgeConfig
import Foundation
import XCTest

final class ConfigurationTests: XCTestCase {
    func testNoFileIsAValidSetup() throws {
        let configuration = try Configuration.load(path: "/nonexistent/focus-bridge/config.toml")
        XCTAssertEqual(configuration, Configuration())
        XCTAssertEqual(configuration.downstream.mode, .auto)
    }

    func testTheDownstreamTable() throws {
        let text = """
        [downstream]
        mode = "spawn"
        command = ["dunst", "-config", "/tmp/dunstrc"]
        passthrough-names = ["org.erikreider.swaync.cc"]
        """
        let downstream = try Configuration.parse(text, path: "c.toml").downstream
        XCTAssertEqual(downstream.mode, .spawn)
        XCTAssertEqual(downstream.command, ["dunst", "-config", "/tmp/dunstrc"])
        XCTAssertEqual(downstream.passthroughNames, ["org.erikreider.swaync.cc"])
    }

    func testErrorsArePathLineColumn() {
        let cases: [(String, String, String)] = [
            ("[downstream]\nmode = \"spawn\"\ncomand = [\"dunst\"]\n", "c.toml:3:1:", "did you mean `command`?"),
            ("[downstream]\n  mode = 3\n", "c.toml:2:10:", "must be a string, not an integer"),
            ("[downstream]\nmode = \"telepathy\"\n", "c.toml:2:8:", "must be one of"),
            ("[downstream]\ncommand = \"dunst\"\n", "c.toml:2:11:", "array of strings"),
            ("[downstreem]\n", "c.toml:1:2:", "did you mean `downstream`?"),
            ("[downstream]\nmode = \"log\n", "c.toml:2:", "string"),
        ]
        for (text, prefix, message) in cases {
            XCTAssertThrowsError(try Configuration.parse(text, path: "c.toml"), text) { error in
                let description = "\(error)"
                XCTAssertTrue(description.hasPrefix(prefix), "\(description) should start with \(prefix)")
                XCTAssertTrue(description.contains(message), "\(description) should say \(message)")
            }
        }
    }

    func testTheExampleConfigLoads() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        XCTAssertNoThrow(try Configuration.load(path: root.appendingPathComponent("Config/config.example.toml").path))
    }
}
