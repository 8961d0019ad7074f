import FocusBridgeCore
import FocusBridgeTime
import FocusBridgeDBus
@testable import FocusBridgeServer
import FocusBridgeTestSupport
import XCTest

/// `FloodCollapse`: one "N more from App" notification per app over its rate limit, its count
/// shown at once and then at most a few times a second, the number of groups bounded.
final class FloodCollapseTests: XCTestCase {
    private var shown: [(id: UInt32, app: String, summary: String, body: String)] = []
    private var nextID: UInt32 = 100

    private func collapse() -> FloodCollapse {
        let collapse = FloodCollapse()
        collapse.show = { [unowned self] id, app, arguments in
            shown.append((id, app.key, arguments.summary, arguments.body))
        }
        return collapse
    }

    private func newID() -> UInt32 {
        nextID += 1
        return nextID
    }

    private func arguments(_ app: String, _ summary: String) -> NotifyArguments {
        NotifyArguments(.tuple([.string(app), .uint32(0), .string("\(app)-icon"), .string(summary), .string(""),
                                .strings([]), .dictionary([]), .int32(-1)]))
    }

    private func app(_ key: String) -> AppIdentity { AppIdentity(key: key, source: .appName) }

    func testOneGroupPerAppWithoutRegardToCase() {
        let collapse = collapse()
        let mail = collapse.group(for: app("Mail"), newID: newID)
        XCTAssertEqual(collapse.group(for: app("mail"), newID: newID), mail, "the same app, the same notification")
        let chat = collapse.group(for: app("Chat"), newID: newID)
        XCTAssertNotEqual(chat, mail)
        XCTAssertEqual(nextID, 102, "an ID only for a new group")
    }

    func testTheFirstIsShownAtOnceAndTheRestAtMostAFewTimesASecond() {
        let collapse = collapse()
        let id = collapse.group(for: app("Mail"), newID: newID)
        collapse.count(app("Mail"), appName: "Mail", icon: "Mail-icon", latest: "one")
        XCTAssertEqual(shown.map(\.id), [id])
        XCTAssertEqual(shown.first?.summary, "1 more from Mail")
        XCTAssertEqual(shown.first?.body, "one", "the latest summary")

        for n in 2...20 { collapse.count(app("Mail"), appName: "Mail", icon: "Mail-icon", latest: "n\(n)") }
        XCTAssertEqual(shown.count, 1, "a flood is not a flood of updates")
        waitOnMainLoop(until: { shown.count == 2 }, seconds: 5)
        XCTAssertEqual(shown.last?.id, id, "it replaces itself")
        XCTAssertEqual(shown.last?.summary, "20 more from Mail", "the count when the update is shown")
        XCTAssertEqual(shown.last?.body, "n20", "the latest summary when the update is shown")
    }

    func testAnEndedGroupStartsAfreshNextTime() {
        let collapse = collapse()
        let first = collapse.group(for: app("Mail"), newID: newID)
        collapse.count(app("Mail"), appName: "Mail", icon: "Mail-icon", latest: "one")
        collapse.ended(first)
        let second = collapse.group(for: app("Mail"), newID: newID)
        XCTAssertNotEqual(second, first)
        collapse.count(app("Mail"), appName: "Mail", icon: "Mail-icon", latest: "two")
        XCTAssertEqual(shown.map(\.id), [first, second])
        XCTAssertEqual(shown.last?.summary, "1 more from Mail", "counted from one again")
    }

    func testACountForAnAppWithoutAGroupShowsNothing() {
        let collapse = collapse()
        collapse.count(app("Mail"), appName: "Mail", icon: "Mail-icon", latest: "one")
        XCTAssertTrue(shown.isEmpty)
    }

    func testTheGroupsAreBoundedAndTheOldestAppGoesFirst() {
        let collapse = collapse()
        let oldest = collapse.group(for: app("app0"), newID: newID)
        for n in 1..<FloodCollapse.maxGroups { _ = collapse.group(for: app("app\(n)"), newID: newID) }
        let second = collapse.group(for: app("app1"), newID: newID)
        XCTAssertEqual(collapse.group(for: app("app0"), newID: newID), oldest, "all fit so far")

        _ = collapse.group(for: app("one too many"), newID: newID)
        XCTAssertNotEqual(collapse.group(for: app("app0"), newID: newID), oldest,
                          "the oldest app starts a new group next time")
        XCTAssertNotEqual(collapse.group(for: app("app1"), newID: newID), second,
                          "app0's return pushed out the next oldest")
    }
}
