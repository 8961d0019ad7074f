import FocusBridgeCore
import FocusBridgeJSON
import Foundation
import XCTest

/// The first hour with the bridge: the closest-name suggestion, the built-in Do Not Disturb and the
/// sentence for an unknown Focus (the not-running advice and the answer of FocusOn/FocusOff are
/// the control contract's: StartAdviceTests, FocusChangeReportTests).
final class FirstHourTests: XCTestCase {
    private let commands = ["status", "focus", "dnd", "silent", "summary", "history", "explain", "check-config",
                            "reload", "watch", "help"]

    func testClosestCommand() {
        XCTAssertEqual(ClosestName.to("stauts", among: commands), "status")
        XCTAssertEqual(ClosestName.to("STATUS", among: commands), "status")
        XCTAssertEqual(ClosestName.to("histroy", among: commands), "history")
        XCTAssertEqual(ClosestName.to("relaod", among: commands), "reload")
        XCTAssertEqual(ClosestName.to("chek-config", among: commands), "check-config")
        XCTAssertEqual(ClosestName.to("silnet", among: commands), "silent")
        XCTAssertNil(ClosestName.to("xyzzy", among: commands))
        XCTAssertNil(ClosestName.to("q", among: ["on", "off"]), "one letter is no word to correct")
        XCTAssertNil(ClosestName.to("anything", among: []))
    }

    func testClosestFocusAndDistance() {
        XCTAssertEqual(ClosestName.to("wrok", among: ["work", "sleep", "dnd"]), "work")
        XCTAssertEqual(ClosestName.to("slep", among: ["work", "sleep", "dnd"]), "sleep")
        XCTAssertEqual(ClosestName.distance("stauts", "status"), 1, "a swap is one edit")
        XCTAssertEqual(ClosestName.distance("", "abc"), 3)
        XCTAssertEqual(ClosestName.distance("kitten", "sitting"), 3)
        XCTAssertEqual(ClosestName.hint("wrok", among: ["work"]), "; did you mean 'work'?")
        XCTAssertEqual(ClosestName.hint("zzzzzz", among: ["work"]), "")
    }

    func testUnknownFocusSentence() {
        var settings = PolicySettings()
        settings.focuses = [FocusProfile(name: "work")]
        XCTAssertEqual(FocusProfile.unknownSentence("wrok", known: settings.profiles),
                       "there is no Focus named \"wrok\"; did you mean 'work'? (known: work, dnd).")
        XCTAssertEqual(FocusProfile.unknownSentence("zzzzzzz", known: PolicySettings().profiles),
                       "there is no Focus named \"zzzzzzz\" (known: dnd).")
    }

    func testBuiltInDoNotDisturb() {
        let settings = PolicySettings()
        XCTAssertEqual(settings.profiles.map(\.name), ["dnd"])
        let dnd = settings.focus(named: "DND")
        XCTAssertEqual(dnd, FocusProfile.doNotDisturb)
        XCTAssertEqual(dnd?.isBuiltIn, true)
        XCTAssertEqual(dnd?.apps, .allowOnly([]))
        XCTAssertEqual(dnd?.people, [])
        XCTAssertEqual(dnd?.timeSensitive, true)
        XCTAssertEqual(dnd?.schedule, [])

        // What it lets through: time-sensitive and critical only.
        var rules = PolicySettings()
        var rule = AppRule()
        rule.critical = true
        rules.apps["Alarm"] = rule
        let context = PolicyContext(settings: rules, activeFocus: rules.focus(named: "dnd"))
        func outcome(_ app: String, urgency: UInt8?, category: String? = nil) -> DeliveryOutcome {
            var hints: [String: HintValue] = [:]
            if let urgency { hints["urgency"] = .integer(Int64(urgency)) }
            if let category { hints["category"] = .string(category) }
            let request = NotificationRequest(appName: app, summary: "s", hints: hints)
            return Policy.decide(request, app: AppIdentity(key: app, source: .appName), context: context).outcome
        }
        XCTAssertEqual(outcome("Mail", urgency: nil), .heldFocus)
        XCTAssertEqual(outcome("Mail", urgency: 0), .heldFocus)
        XCTAssertEqual(outcome("Chat", urgency: nil, category: "im.received"), .heldFocus)
        XCTAssertEqual(outcome("Mail", urgency: 2), .delivered, "time-sensitive breaks through")
        XCTAssertEqual(outcome("Alarm", urgency: 2), .delivered, "critical breaks through")
    }

    func testDndTableReplacesTheBuiltIn() {
        var settings = PolicySettings()
        var own = FocusProfile(name: "dnd")
        own.apps = .allowOnly(["Mail"])
        settings.focuses = [FocusProfile(name: "work"), own]
        XCTAssertEqual(settings.profiles.map(\.name), ["work", "dnd"])
        XCTAssertEqual(settings.focus(named: "dnd"), own)
        XCTAssertEqual(settings.focus(named: "dnd")?.isBuiltIn, false)
        settings.focuses = [FocusProfile(name: "DnD")]
        XCTAssertEqual(settings.profiles.map(\.name), ["DnD"], "the file's name, in any case, replaces it")
    }

}
