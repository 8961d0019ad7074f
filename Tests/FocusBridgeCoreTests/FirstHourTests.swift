import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeJSON
import Foundation
import XCTest

/// What a person meets in the first hour: the closest-name suggestion, the built-in Do Not
/// Disturb, the not-running advice and the answer of FocusOn/FocusOff.
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
