import FocusBridgeCore
import FocusBridgeServer
import XCTest

/// The window in front as the compositors tell it: sway's and i3's tree, Hyprland's events.
final class SwayTreeTests: XCTestCase {
    func testSwaysTreeGivesTheFocusedAndAVisibleFullscreenWindow() throws {
        let tree = """
            {"type": "root", "nodes": [{"type": "output", "nodes": [{"type": "workspace", "nodes": [
              {"type": "con", "app_id": "foot", "pid": 100, "focused": true, "fullscreen_mode": 0, "visible": true, "nodes": []},
              {"type": "con", "app_id": null, "window": 4194307, "window_properties": {"class": "mpv", "instance": "gl"},
               "pid": 200, "focused": false, "fullscreen_mode": 1, "visible": true, "nodes": []}
            ], "floating_nodes": []}]}]}
            """
        let state = try XCTUnwrap(SwayTree.state(Array(tree.utf8)))
        XCTAssertEqual(state.focused, FocusedWindow(names: ["foot"], processID: 100))
        XCTAssertEqual(state.fullscreen?.names, ["gl", "mpv"])
        XCTAssertNil(SwayTree.state(Array("not json".utf8)))
        XCTAssertEqual(SwayTree.state(Array("{}".utf8)), WindowState())
    }

    func testHyprlandEvents() {
        var events = HyprlandEvents()
        XCTAssertTrue(events.take("activewindow>>firefox,Mozilla Firefox"))
        XCTAssertEqual(events.state.focused?.names, ["firefox"])
        XCTAssertTrue(events.take("fullscreen>>1"))
        XCTAssertEqual(events.state.fullscreen?.names, ["firefox"])
        XCTAssertFalse(events.take("workspace>>2"))
        XCTAssertFalse(events.take("garbage"))
        XCTAssertTrue(events.take("activewindow>>,"))
        XCTAssertNil(events.state.focused)
    }
}
