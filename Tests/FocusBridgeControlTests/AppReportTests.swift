import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeTime
import XCTest

/// `focusctl apps` (`AppReport`): where each setting of an app comes from (default, the file, a
/// choice), which apps are listed, and which `[apps]` table matched by which name.
final class AppReportTests: XCTestCase {
    private let now = Instant(timeIntervalSince1970: 1_800_000_000)

    private func configured(_ rule: (inout AppRule) -> Void) -> PolicySettings {
        var settings = PolicySettings()
        var appRule = AppRule()
        rule(&appRule)
        settings.apps["slack"] = appRule
        return settings
    }

    func testOriginsSayWhereEachSettingComesFrom() {
        let file = configured { $0.delivery = .summary; $0.origins["delivery"] = .config(line: 7) }
        var choices = AppChoices()
        choices.set(.init(app: "Slack", choice: .marketing(true), made: now))
        let report = AppReport.all(counts: [("Slack", "active", "delivered", 4), ("slack", "passive", "held-summary", 2)],
                                   policy: file, configPath: "/c.toml", choices: choices, mutes: MuteList(), now: now)
        XCTAssertEqual(report.count, 1, "one app, whatever the case")
        XCTAssertEqual(report[0].total, 6)
        XCTAssertEqual(report[0].decisions, ["delivered": 4, "held-summary": 2])
        XCTAssertEqual(report[0].settings["delivery"]?.source, "config")
        XCTAssertEqual(report[0].settings["delivery"]?.at, "/c.toml:7")
        XCTAssertEqual(report[0].settings["marketing"]?.source, "choice")
        XCTAssertEqual(report[0].settings["marketing"]?.value, "on")
        XCTAssertEqual(report[0].settings["time-sensitive"]?.source, "default")
    }

    func testAppsListsAtMostTheLimitNamedOnesFirstThenTheBusiest() {
        let file = configured { $0.delivery = .summary }
        var choices = AppChoices()
        choices.set(.init(app: "Quiet", choice: .marketing(true), made: now))
        var counts: [(app: String, level: String, decision: String, count: Int)] = [("Quiet", "active", "delivered", 1)]
        for index in 0..<5000 { counts.append(("app-\(index)", "active", "delivered", 2 + index % 7)) }
        counts.append(("Busy", "active", "delivered", 500))
        counts.append(("busy", "passive", "delivered", 1))
        let report = AppReport.all(counts: counts, policy: file, configPath: "/c.toml", choices: choices, mutes: MuteList(),
                                   now: now, limit: 100)
        XCTAssertEqual(report.count, 100)
        let names = report.map(\.app)
        XCTAssertEqual(names, names.sorted { $0.lowercased() < $1.lowercased() }, "sorted by name")
        XCTAssertTrue(names.contains("slack"), "in the configuration: listed whatever it sent")
        XCTAssertTrue(names.contains("Quiet"), "with a choice: listed")
        XCTAssertEqual(report.first { $0.app == "Busy" }?.total, 501, "the busiest, its counts under either case")
        XCTAssertTrue(report.filter { $0.app.hasPrefix("app-") }.allSatisfy { $0.total == 8 }, "then the next busiest")
        XCTAssertEqual(AppReport.all(counts: counts, policy: file, configPath: "/c.toml", choices: choices, mutes: MuteList(),
                                     now: now).count, AppReport.maxApps)
    }

    func testAReportShowsTheAppNamesAndWhichNameTheTableMatched() {
        var file = PolicySettings()
        var off = AppRule()
        off.delivery = .off
        file.apps["Firefox"] = off
        file.apps["Quiet"] = AppRule()
        let report = AppReport.all(counts: [("firefox-esr", "active", "dropped", 3)],
                                   names: [("firefox-esr", "Firefox", 3)], policy: file, configPath: "/c.toml",
                                   choices: AppChoices(), mutes: MuteList(), now: now)
        let byApp = Dictionary(uniqueKeysWithValues: report.map { ($0.app, $0) })
        XCTAssertEqual(byApp["firefox-esr"]?.names, ["Firefox"])
        XCTAssertEqual(byApp["firefox-esr"]?.table, "Firefox")
        XCTAssertEqual(byApp["firefox-esr"]?.matched, "app name")
        XCTAssertEqual(byApp["firefox-esr"]?.settings["delivery"]?.value, "off")
        XCTAssertEqual(byApp["Firefox"]?.matched, "app key")
        XCTAssertEqual(byApp["Firefox"]?.quiet, false, "sent under its name")
        XCTAssertEqual(byApp["Quiet"]?.quiet, true, "configured, nothing sent under either name")
    }
}
