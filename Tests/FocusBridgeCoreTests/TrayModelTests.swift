import FocusBridgeCore
import FocusBridgeTime
import Foundation
import XCTest

final class TrayModelTests: XCTestCase {
    private let utc = TimeZoneRules.utc
    private let now = Instant(timeIntervalSince1970: 1_790_000_000) // 2026-09-21 14:13:20 UTC, a Monday

    func testNoFocusShowsTheIdleIconAndOffChecked() {
        let model = TrayModel(.init(focusNames: ["work", "dnd"]), now: now, timeZone: utc)
        XCTAssertEqual(model.look, .none)
        XCTAssertEqual(model.iconName, TrayModel.idleIcon)
        XCTAssertEqual(model.tooltip, "No Focus is on")
        XCTAssertEqual(model.items.map(\.label), ["work", "dnd", "Off", "", "Silent", "", "Deliver Summary Now",
                                                   "Reload Configuration"])
        XCTAssertEqual(model.item(TrayModel.offID)?.isOn, true)
        XCTAssertEqual(model.item(TrayModel.firstFocusID)?.command, .focusOn("work"))
        XCTAssertEqual(model.item(TrayModel.firstFocusID)?.toggle, .radio)
        XCTAssertEqual(model.item(TrayModel.silentID)?.toggle, .checkmark)
        XCTAssertEqual(model.items.filter(\.isSeparator).count, 2)
    }

    func testAFocusShowsItsIconItsEndHeldCountsAndMutes() {
        let state = TrayModel.State(focusNames: ["work", "dnd"], activeFocus: "work",
                                    focusUntil: now.addingTimeInterval(3600), silent: true, heldFocus: 3, heldSummary: 2,
                                    snoozed: 1, mutes: [.init(app: "Slack", until: now.addingTimeInterval(86_400))])
        let model = TrayModel(state, now: now, timeZone: utc)
        XCTAssertEqual(model.look, .focus, "a Focus wins over silent")
        XCTAssertEqual(model.iconName, TrayModel.focusIcon)
        XCTAssertEqual(model.title, "Focus: work")
        XCTAssertEqual(model.tooltip.split(separator: "\n"), [
            "work is on until 15:13", "Silent: no sounds", "3 held by the Focus", "2 waiting for the summary",
            "1 snoozed", "Slack muted until Tue 14:13",
        ])
        XCTAssertEqual(model.item(TrayModel.firstFocusID)?.isOn, true)
        XCTAssertEqual(model.item(TrayModel.offID)?.isOn, false)
        XCTAssertEqual(model.item(TrayModel.silentID)?.isOn, true)
        XCTAssertEqual(model.item(TrayModel.summaryID)?.label, "Deliver Summary Now (2)")
    }

    func testSilentAloneShowsTheSilentIcon() {
        let model = TrayModel(.init(focusNames: [], silent: true), now: now, timeZone: utc)
        XCTAssertEqual(model.iconName, TrayModel.silentIcon)
        XCTAssertEqual(model.title, "Silent")
    }

    func testAToggleKeepsTheLayoutAnotherFocusListDoesNot() {
        let off = TrayModel(.init(focusNames: ["work"]), now: now, timeZone: utc)
        let on = TrayModel(.init(focusNames: ["work"], activeFocus: "work"), now: now, timeZone: utc)
        let more = TrayModel(.init(focusNames: ["work", "gaming"]), now: now, timeZone: utc)
        XCTAssertTrue(off.hasSameLayout(as: on))
        XCTAssertFalse(off.hasSameLayout(as: more))
    }

    func testTheMenuIsBoundedAndFarTimesCarryTheDate() {
        let names = (0..<200).map { "focus\($0)" }
        let model = TrayModel(.init(focusNames: names), now: now, timeZone: utc)
        XCTAssertEqual(model.items.filter { $0.toggle == .radio }.count, TrayModel.maxFocusItems + 1)
        let far = TrayModel(.init(focusNames: ["a"], activeFocus: "a", focusUntil: now.addingTimeInterval(30 * 86_400)),
                            now: now, timeZone: utc)
        XCTAssertEqual(far.tooltip, "a is on until 2026-10-21 14:13")
    }
}
