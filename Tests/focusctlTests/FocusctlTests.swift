import ArgumentParser
import FocusBridgeControl
import FocusBridgeJSON
import FocusBridgeTime
@testable import focusctl
import XCTest

/// focusctl's own logic, through @testable import of the executable: the answer to a misspelt
/// command, the words its options take, `--json` on every command that prints it, the table and
/// the local times people read, and the line that says which Focus is on.
final class FocusctlTests: XCTestCase {
    // MARK: Command words

    func testAMisspeltCommandIsAnsweredWithTheClosestOne() {
        XCTAssertEqual(Focusctl.misspelt(["stauts"]), "focusctl: unknown command 'stauts'; did you mean 'status'?")
        XCTAssertEqual(Focusctl.misspelt(["focus", "onn"]), "focusctl focus: unknown command 'onn'; did you mean 'on'?")
        XCTAssertEqual(Focusctl.misspelt(["xyzzy"]), "focusctl: unknown command 'xyzzy'; focusctl --help lists them.")
        for words in [[], ["status"], ["status", "--json"], ["focus", "on", "work"], ["help"], ["--version"], ["dnd", "off"]] {
            XCTAssertNil(Focusctl.misspelt(words), "\(words)")
        }
    }

    // MARK: Options

    /// `--for` and `--until` take any text (a bad one gets focusctl's own sentence later, not
    /// "Missing value"), and not both at once.
    func testFocusTimeTakesAnyTextButNotBoth() throws {
        let on = try XCTUnwrap(Focusctl.parseAsRoot(["focus", "on", "work", "--for", "-5m"]) as? FocusCommand.On)
        XCTAssertEqual(on.name, "work")
        XCTAssertEqual(on.time.duration, "-5m")
        XCTAssertNil(on.time.until)
        let dnd = try XCTUnwrap(Focusctl.parseAsRoot(["dnd", "on", "--until", "17:30"]) as? DndCommand.On)
        XCTAssertEqual(dnd.time.until, "17:30")
        XCTAssertThrowsError(try Focusctl.parseAsRoot(["focus", "on", "work", "--for", "1h", "--until", "17:30"])) { error in
            XCTAssertTrue(Focusctl.message(for: error).contains("Give --for or --until, not both."), Focusctl.message(for: error))
        }
    }

    func testJSONIsOneFlagOnEachCommandWithTheHelpOfWhatItPrints() throws {
        XCTAssertEqual(try (Focusctl.parseAsRoot(["status", "--json"]) as? StatusCommand)?.output.json, true)
        XCTAssertEqual(try (Focusctl.parseAsRoot(["status"]) as? StatusCommand)?.output.json, false)
        XCTAssertEqual(try (Focusctl.parseAsRoot(["focus", "on", "work", "--json"]) as? FocusCommand.On)?.output.json, true)
        XCTAssertEqual(try (Focusctl.parseAsRoot(["dnd", "off", "--json"]) as? DndCommand.Off)?.output.json, true)
        XCTAssertEqual(try (Focusctl.parseAsRoot(["silent", "on", "--json"]) as? SilentCommand)?.output.json, true)
        let snooze = try XCTUnwrap(Focusctl.parseAsRoot(["snooze", "4", "--for", "10m", "--json"]) as? SnoozeCommand)
        XCTAssertEqual(snooze.output.json, true)
        XCTAssertEqual(snooze.duration, "10m")
        XCTAssertThrowsError(try Focusctl.parseAsRoot(["status", "--jsn"]))

        for (command, help) in [(StatusCommand.self as ParsableCommand.Type, JSONHelp.Status.text),
                                (SilentCommand.self, JSONHelp.Silent.text), (DoctorCommand.self, JSONHelp.Doctor.text),
                                (FocusCommand.On.self, JSONHelp.FocusChange.text)] {
            let text = Focusctl.helpMessage(for: command, columns: 1000)
            XCTAssertTrue(text.contains("--json"), text)
            XCTAssertTrue(text.contains(help), "\(command): \(text)")
        }
    }

    // MARK: What people read

    func testATableAlignsItsColumnsAndShowsNoControlCharacters() {
        XCTAssertEqual(Table.render([["Focus", "work is on"], ["Next summary", "18:00"]]),
                       "Focus" + String(repeating: " ", count: 9) + "work is on\nNext summary  18:00")
        XCTAssertEqual(Table.render([["a", "b", "c"], ["longer", "x"]]), "a       b  c\nlonger  x",
                       "the last cell of a row is never padded")
        XCTAssertEqual(Table.render([["é", "1"], ["ab", "2"]]), "é   1\nab  2", "widths in characters, not bytes")
        XCTAssertEqual(Table.render([["App", "\u{1b}[2Jred\nline\t"]]), "App  \\e[2Jred\\nline\\t", "a cell is one line of text")
        XCTAssertEqual(Table.render([]), "")
    }

    /// Zone-independent: the times are read back from the full form the same instant gives.
    func testLocalTimesAreTheClockTodayTheWeekdayOtherwise() throws {
        let now = Instant(timeIntervalSince1970: 1_795_291_200)
        let full = LocalTime.string(now, always: true, now: now)
        XCTAssertNotNil(full.wholeMatch(of: /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/), full)
        let clock = String(full.dropFirst(11).prefix(5))
        XCTAssertEqual(LocalTime.string(now, now: now), clock, "today: the clock alone")

        let before = now.addingTimeInterval(-3 * 86_400)
        let earlier = LocalTime.string(before, now: now)
        let weekday = try XCTUnwrap(earlier.split(separator: " ").first.map(String.init))
        XCTAssertTrue(["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"].contains(weekday), earlier)
        XCTAssertEqual(earlier, weekday + " " + LocalTime.string(before, always: true, now: now).dropFirst(11).prefix(5))
        XCTAssertNotEqual(LocalTime.string(now.addingTimeInterval(-86_400), now: now).split(separator: " ").first.map(String.init),
                          weekday, "three days apart: another weekday")

        for untrusted in [Double.infinity, -.infinity, .nan, 1e300, -1e300] {
            XCTAssertEqual(LocalTime.string(Instant(timeIntervalSince1970: untrusted), now: now), "?", "\(untrusted)")
        }
    }

    func testTheFocusLineSaysWhichIsOnUntilWhenAndWhy() throws {
        func focus(_ json: String) throws -> StatusReport.Focus {
            try JSONText.decode(StatusReport.Focus.self, from: json)
        }
        XCTAssertEqual(FocusCommand.describe(nil), "No Focus is on.")
        XCTAssertEqual(FocusCommand.describe(try focus(
            #"{"name":"work","since":"2026-11-21T08:00:00.000Z","until":null,"source":"manual","reason":null,"device":null}"#)),
            "work is on (manual).")
        XCTAssertEqual(FocusCommand.describe(try focus(
            #"{"name":"work","since":"2026-11-21T08:00:00.000Z","until":null,"source":"shared","reason":null,"device":"laptop"}"#)),
            "work is on (from laptop).")
        XCTAssertEqual(FocusCommand.describe(try focus(
            #"{"name":"work","since":"2026-11-21T08:00:00.000Z","until":null,"source":"shared","reason":null,"device":null}"#)),
            "work is on (from another device).")
        XCTAssertEqual(FocusCommand.describe(try focus(
            #"{"name":"movie","since":"2026-11-21T08:00:00.000Z","until":null,"source":"window","reason":"while vlc is fullscreen","device":null}"#)),
            "movie is on (while vlc is fullscreen).")
        let until = try XCTUnwrap(Timestamp.parse("2026-11-21T17:30:00.000Z"))
        XCTAssertEqual(FocusCommand.describe(try focus(
            #"{"name":"work","since":"2026-11-21T08:00:00.000Z","until":"2026-11-21T17:30:00.000Z","source":"scheduled","reason":null,"device":null}"#)),
            "work is on until \(LocalTime.string(until)) (scheduled).")
    }
}
