import FocusBridgeControl
import XCTest

/// The advice focusctl gives when no bridge answers: the unit folders the user manager reads, and
/// how to start the bridge there.
final class StartAdviceTests: XCTestCase {
    func testStartAdvice() {
        let folders = StartAdvice.userUnitFolders(["HOME": "/home/a"])
        XCTAssertEqual(folders.first, "/home/a/.config/systemd/user")
        XCTAssertTrue(folders.contains("/home/a/.local/share/systemd/user"))
        XCTAssertTrue(folders.contains("/usr/share/systemd/user"))
        XCTAssertTrue(folders.contains("/usr/lib/systemd/user"))
        let custom = StartAdvice.userUnitFolders(["HOME": "/home/a", "XDG_DATA_HOME": "/d", "XDG_CONFIG_HOME": "/c",
                                                  "XDG_DATA_DIRS": "/x:/y"])
        XCTAssertEqual(Array(custom.prefix(5)), ["/c/systemd/user", "/etc/systemd/user", "/d/systemd/user",
                                                 "/x/systemd/user", "/y/systemd/user"])
        XCTAssertEqual(StartAdvice.notRunning(unitInstalled: true, userManager: true),
                       "focusctl: focus-bridge is not running on this session bus (start it with 'systemctl --user start focus-bridge').")
        XCTAssertEqual(StartAdvice.notRunning(unitInstalled: false, userManager: true),
                       "focusctl: focus-bridge is not running on this session bus (start it with 'focus-bridge &').")
        // No user manager runs the session: a unit nothing can start is no advice.
        XCTAssertEqual(StartAdvice.notRunning(unitInstalled: true, userManager: false),
                       "focusctl: focus-bridge is not running on this session bus (start it with 'focus-bridge &').")
    }
}
