import FocusBridgeConfig
import Foundation
import XCTest

/// Every mistake of a file in one run: the reader notes each problem at its place and
/// goes on; the file is still refused as a whole.
final class ConfigurationErrorsTests: XCTestCase {
    /// Seven different mistakes, each where it is, in file order.
    static let sevenMistakes = """
    # my settings
    times = ["08:00"]

    [general]
    max-actions = "3"

    [apps."Slack"]
    levle = "passive"

    [apps."slack"]
    level = "active"

    [focus.work]
    apps = ["Slack"]
    silence = ["Steam"]

    [[focus.work.schedule]]
    days = ["mon", "funday"]
    start = "25:00"
    end = "17:00"

    """

    static let sevenLines = [
        "c.toml:2:1: unknown key `times` at the top level (outside any table); did you mean `[summary] times`?",
        "c.toml:5:15: `max-actions` must be a whole number, not a string",
        "c.toml:8:1: unknown key `levle` in [apps.Slack]; did you mean `level`?",
        "c.toml:10:1: [apps.\"slack\"] repeats [apps.\"Slack\"] (app keys ignore case)",
        "c.toml:15:1: a Focus takes `apps` (allowed apps) or `silence` (all but these), not both",
        "c.toml:18:16: unknown day \"funday\" (expected mon, tue, wed, thu, fri, sat or sun)",
        "c.toml:19:9: \"25:00\" is not a time of day (expected HH:MM, 00:00 to 23:59)",
    ]

    func testEveryMistakeIsReportedAtItsPlaceInFileOrder() {
        XCTAssertThrowsError(try Configuration.parse(Self.sevenMistakes, path: "c.toml")) { error in
            guard let error = error as? ConfigError else { return XCTFail("not a ConfigError: \(error)") }
            XCTAssertEqual(error.lines, Self.sevenLines)
            XCTAssertEqual(error.description, Self.sevenLines.joined(separator: "\n"))
            // The first problem is the error's own place and message.
            XCTAssertEqual([error.line, error.column], [2, 1])
            XCTAssertTrue(error.message.hasPrefix("unknown key `times`"), error.message)
        }
    }

    func testLoadRefusesTheFileWithEveryProblem() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-errors-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("config.toml").path
        try Self.sevenMistakes.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Configuration.load(path: path)) { error in
            let lines = (error as? ConfigError)?.lines ?? []
            XCTAssertEqual(lines, Self.sevenLines.map { path + $0.dropFirst("c.toml".count) })
        }
    }

    /// What is not a configuration file is refused with one line at 1:1, never trapped on.
    func testAFolderAndAFileTooLargeAreRefusedAtTheirFirstLine() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-unreadable-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder + "/config.toml", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertThrowsError(try Configuration.load(path: folder + "/config.toml")) { error in
            XCTAssertEqual("\(error)", folder + "/config.toml:1:1: not a regular file (a folder, a FIFO or a device); it is not read")
        }
        // A FIFO is refused at once: opening it to read would wait for a writer for good.
        let fifo = folder + "/fifo.toml"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertThrowsError(try Configuration.load(path: fifo)) { error in
            XCTAssertEqual("\(error)", fifo + ":1:1: not a regular file (a folder, a FIFO or a device); it is not read")
        }
        let large = folder + "/large.toml"
        XCTAssertTrue(FileManager.default.createFile(atPath: large, contents: Data(repeating: 0x23, count: Configuration.maxFileBytes + 1)))
        XCTAssertThrowsError(try Configuration.load(path: large)) { error in
            XCTAssertEqual("\(error)", large + ":1:1: the file is larger than 1 MiB (1048576 bytes), the most a configuration may be; is it the right file?")
        }
        let largest = folder + "/largest.toml"
        XCTAssertTrue(FileManager.default.createFile(atPath: largest, contents: Data(repeating: 0x23, count: Configuration.maxFileBytes)))
        XCTAssertEqual(try Configuration.load(path: largest), Configuration(), "a file of comments at the bound is read")
    }

    /// Wrong values leave the rest checked: the next key of the same table, the next element of
    /// the same array, the other time of the same schedule entry.
    func testTheReadingGoesOnPastEachProblem() {
        let text = """
        [general]
        previews = "sometimes"
        max-actions = 9
        coalesce-seconds = -1
        destructive-labels = ["Delete", 3, true]
        [summary]
        times = ["6pm", "08:00", "25:00"]
        [focus.night]
        apps = []
        [[focus.night.schedule]]
        start = "22:61"
        end = "7am"
        [[focus.night.schedule]]
        days = ["mon"]
        """
        XCTAssertThrowsError(try Configuration.parse(text, path: "c.toml")) { error in
            let places = ((error as? ConfigError)?.problems ?? []).map { "\($0.line):\($0.column)" }
            XCTAssertEqual(places, ["2:12", "3:15", "4:20", "5:33", "5:36", "7:10", "7:26", "11:9", "12:7", "13:1", "13:1"],
                           "\(error)")
        }
    }

    /// A misspelt `start` is told once, as the unknown key it is, not again as missing.
    func testAMisspeltKeyIsNotAlsoMissing() {
        let text = "[focus.w]\n[[focus.w.schedule]]\nstrat = \"09:00\"\nend = \"17:00\"\n[[focus.w.schedule]]\nstart = \"09:00\"\n"
        XCTAssertThrowsError(try Configuration.parse(text, path: "c.toml")) { error in
            XCTAssertEqual((error as? ConfigError)?.lines, [
                "c.toml:3:1: unknown key `strat` in [focus.w.schedule]; did you mean `start`?",
                "c.toml:5:1: a schedule entry needs `end`",
            ])
        }
    }

    /// `mute = true` in an app's table is no setting: a mute is for a while, set with focusctl;
    /// the sentence says so and names the key that keeps an app quiet for good.
    func testAMuteInAnAppsTableSaysWhereMutesLive() {
        XCTAssertThrowsError(try Configuration.parse("[apps.\"Slack\"]\nmute = true\n", path: "c.toml")) { error in
            XCTAssertEqual((error as? ConfigError)?.lines, [
                "c.toml:2:1: unknown key `mute` in [apps.Slack]; a mute lasts a while and is set with `focusctl mute Slack` "
                    + "(`focusctl unmute` ends it); to never show this app's notifications: `delivery = \"off\"`",
            ])
        }
    }

    /// A key of a known table written at the top level says where it belongs.
    func testATopLevelKeyNamesItsTable() {
        let cases: [(String, String)] = [
            ("times = [\"08:00\"]\n", "unknown key `times` at the top level (outside any table); did you mean `[summary] times`?"),
            ("max-actions = 2\n", "did you mean `[general] max-actions`?"),
            ("mode = \"log\"\n", "did you mean `[downstream] mode`?"),
            ("level = \"passive\"\n", "did you mean `[apps.\"APP\"] level`?"),
            ("max-action = 2\n", "did you mean `[general] max-actions`?"),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try Configuration.parse(text, path: "c.toml"), text) { error in
                XCTAssertTrue("\(error)".hasPrefix("c.toml:1:1: "), "\(error)")
                XCTAssertTrue("\(error)".hasSuffix(message), "\(error) should end with \(message)")
            }
        }
        // A table the schema does not know stays an unknown table, at its name in the header.
        XCTAssertThrowsError(try Configuration.parse("[genral]\nmax-actions = 2\n", path: "c.toml")) { error in
            XCTAssertEqual("\(error)", "c.toml:1:2: unknown table `genral`; did you mean `general`?")
        }
    }

    /// A TOML syntax error still stops the reading: it is the one problem, at its place.
    func testASyntaxErrorStopsTheReading() {
        let text = "[general]\nmax-actions = \"3\"\n[apps.\"x\"\nlevel = \"urgent\"\n"
        XCTAssertThrowsError(try Configuration.parse(text, path: "c.toml")) { error in
            let problems = (error as? ConfigError)?.problems ?? []
            XCTAssertEqual(problems.count, 1, "\(error)")
            XCTAssertEqual(problems.first?.line, 3, "\(error)")
        }
    }

    /// Problems found in another order are put in file order; at one place, as found.
    func testProblemsAreSortedByPlace() {
        let error = ConfigError(problems: [
            .init(path: "c.toml", line: 9, column: 1, message: "c"),
            .init(path: "c.toml", line: 2, column: 5, message: "b"),
            .init(path: "c.toml", line: 2, column: 1, message: "a"),
            .init(path: "c.toml", line: 9, column: 1, message: "d"),
        ])
        XCTAssertEqual(error.problems.map(\.message), ["a", "b", "c", "d"])
        XCTAssertEqual(error, ConfigError(problems: error.problems))
        XCTAssertEqual(ConfigError(path: "c.toml", line: 1, column: 1, message: "x").description, "c.toml:1:1: x")
    }
}
