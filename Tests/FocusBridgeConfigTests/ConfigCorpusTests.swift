import FocusBridgeConfig
import FocusBridgeCore
import XCTest

/// A corpus of broken files: each one names the file, the line and column of the problem, and
/// says what is wrong. The column is the bad value's own (in an array, the element's), or the
/// key's when the name is the problem (unknown, or not allowed with another).
final class ConfigCorpusTests: XCTestCase {
    func testBrokenFiles() {
        let corpus: [(String, String, String)] = [
            ("syntax", "[general]\nmax-actions = = 3\n", "f.toml:2:"),
            ("unknown general key", "[general]\nmax-action = 3\n", "f.toml:2:1: unknown key `max-action` in [general]; did you mean `max-actions`?"),
            ("unknown table", "\n[genral]\n", "f.toml:2:2: unknown table `genral`; did you mean `general`?"),
            ("wrong type", "[general]\ncoalesce-seconds = \"2m\"\n", "f.toml:2:20: `coalesce-seconds` must be a whole number, not a string"),
            ("too many buttons", "[general]\nmax-actions = 6\n", "f.toml:2:15: `max-actions` must be from 0 to 4"),
            ("history too small to hold a WAL", "[general]\nhistory-max-mb = 2\n",
             "f.toml:2:18: `history-max-mb` must be from 4 to 1048576 (1 TiB), not 2"),
            ("bad enum", "[general]\nafter-focus = \"replai\"\n", "f.toml:2:15: `after-focus` must be one of \"digest\", \"replay\", \"none\", not \"replai\"; did you mean \"replay\"?"),
            ("bad summary time", "[summary]\ntimes = [\"08:00\", \"25:00\"]\n", "f.toml:2:19: \"25:00\" is not a time of day"),
            ("unknown app key", "[apps.\"org.mozilla.firefox\"]\ndelivry = \"summary\"\n", "f.toml:2:1: unknown key `delivry` in [apps.org.mozilla.firefox]; did you mean `delivery`?"),
            ("bad app level", "[apps.firefox]\nlevel = \"urgent\"\n", "f.toml:2:9: `level` must be one of"),
            ("bad app flag", "[apps.firefox]\ncritical = \"yes\"\n", "f.toml:2:12: `critical` must be true or false, not a string"),
            ("apps and silence", "[focus.work]\napps = [\"Mail\"]\nsilence = [\"Games\"]\n", "f.toml:3:1: a Focus takes `apps`"),
            ("unknown focus key", "[focus.work]\npeeple = [\"Mum\"]\n", "f.toml:2:1: unknown key `peeple` in [focus.work]; did you mean `people`?"),
            ("unknown day", "[focus.sleep]\n[[focus.sleep.schedule]]\ndays = [\"mon\", \"funday\"]\nstart = \"22:30\"\nend = \"07:00\"\n",
             "f.toml:3:16: unknown day \"funday\""),
            ("bad time in the second entry", "[focus.w]\n[[focus.w.schedule]]\nstart = \"09:00\"\nend = \"12:00\"\n[[focus.w.schedule]]\nstart = \"13:00\"\nend = \"17:75\"\n",
             "f.toml:7:7: \"17:75\" is not a time of day"),
            ("missing start", "[focus.w]\n[[focus.w.schedule]]\nend = \"12:00\"\n", "f.toml:2:1: a schedule entry needs `start`"),
            ("unknown schedule key", "[focus.w]\n[[focus.w.schedule]]\nstart = \"09:00\"\nend = \"10:00\"\nstop = \"11:00\"\n",
             "f.toml:5:1: unknown key `stop`"),
            ("downstream mode", "[downstream]\nmode = \"spwan\"\n", "f.toml:2:8: `mode` must be one of"),
            ("dotted key at the top", "# apps\n\napps.x.level = \"urgent\"\n", "f.toml:3:16: `level` must be one of"),
            ("dotted key in a table", "[apps.y]\ndelivery = \"summary\"\n  level.deep = \"passive\"\n", "f.toml:3:3: `level` must be a string"),
            ("inline table", "[apps]\n\"y\" = { level = \"urgent\" }\n", "f.toml:2:17: `level` must be one of"),
            ("not a string in an array", "[focus.w]\napps = [\"Mail\", 3]\n",
             "f.toml:2:17: `apps` must be an array of strings, not one with an integer"),
            ("start is end", "[focus.w]\n[[focus.w.schedule]]\nstart = \"09:00\"\nend = \"09:00\"\n",
             "f.toml:4:7: `start` and `end` are the same time"),
            ("a syntax error in a string", "[general]\ndestructive-marker = \"\\e\"\n", "f.toml:2:23: unknown escape \\e"),
            ("app keys differing in case", "[apps.Slack]\ncritical = true\n[apps.slack]\ncritical = false\n",
             "f.toml:3:1: [apps.\"slack\"] repeats [apps.\"Slack\"] (app keys ignore case)"),
        ]
        for (name, text, expected) in corpus {
            XCTAssertThrowsError(try Configuration.parse(text, path: "f.toml"), name) { error in
                XCTAssertTrue("\(error)".hasPrefix(expected), "\(name): got \(error), expected \(expected)…")
            }
        }
    }

    func testAFullFile() throws {
        let text = """
        [general]
        previews = "when-unlocked"
        max-actions = 3
        destructive-labels = []
        destructive-marker = "! "
        coalesce-seconds = 30
        after-focus = "replay"
        history-days = 3
        history-max-mb = 256

        [summary]
        times = ["18:00", "8:00"]

        [apps."org.mozilla.firefox"]
        delivery = "summary"
        level = "passive"
        previews = "never"

        [apps.Pager]
        critical = true
        time-sensitive = false
        communication = true

        [focus.work]
        apps = ["org.gnome.Evolution", "Slack"]
        people = ["Mum", "Team Lead"]
        time-sensitive = false
        previews = "never"
        [[focus.work.schedule]]
        days = ["mon", "tue", "wed", "thu", "fri"]
        start = "09:00"
        end = "17:30"

        [focus.sleep]
        silence = ["Games"]
        [[focus.sleep.schedule]]
        start = "22:30"
        end = "07:00"
        """
        let policy = try Configuration.parse(text, path: "f.toml").policy
        XCTAssertEqual(policy.general.previews, .whenUnlocked)
        XCTAssertEqual(policy.general.maxActions, 3)
        XCTAssertEqual(policy.general.destructiveLabels, [])
        XCTAssertEqual(policy.general.afterFocus, .replay)
        XCTAssertEqual(policy.general.historyMaxMB, 256)
        XCTAssertEqual(policy.summaryTimes.map(\.description), ["08:00", "18:00"])
        XCTAssertEqual(policy.rule(forApp: "ORG.MOZILLA.FIREFOX").delivery, .summary)
        XCTAssertEqual(policy.rule(forApp: "pager").critical, true)
        XCTAssertEqual(policy.rule(forApp: "pager").timeSensitive, false)
        let work = try XCTUnwrap(policy.focus(named: "work"))
        XCTAssertEqual(work.apps, .allowOnly(["org.gnome.Evolution", "Slack"]))
        XCTAssertEqual(work.schedule.first?.days.count, 5)
        let sleep = try XCTUnwrap(policy.focus(named: "sleep"))
        XCTAssertEqual(sleep.apps, .silence(["Games"]))
        XCTAssertTrue(sleep.schedule[0].crossesMidnight)
        XCTAssertEqual(sleep.schedule[0].days.count, 7, "no days means every day")
    }
}
