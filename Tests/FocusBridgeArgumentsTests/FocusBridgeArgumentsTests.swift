@testable import focus_bridge
import FocusBridgeConfig
import XCTest

/// focus-bridge's command line as swift-argument-parser read it (the answers below are what the
/// argument-parser build gave for the same words, but for the three marked): every option in both
/// forms, missing values, unknown options, repeats, `--`, help and version, and the texts.
final class FocusBridgeArgumentsTests: XCTestCase {
    private func parsed(_ words: [String], file: StaticString = #filePath, line: UInt = #line) -> FocusBridgeArguments? {
        do {
            guard case .run(let arguments) = try FocusBridgeArguments.parse(words) else {
                XCTFail("\(words) did not ask to run", file: file, line: line)
                return nil
            }
            return arguments
        } catch {
            XCTFail("\(words): \(error.sentence)", file: file, line: line)
            return nil
        }
    }

    /// The sentence of the error `words` give.
    private func refused(_ words: [String], file: StaticString = #filePath, line: UInt = #line) -> UsageError? {
        do {
            let request = try FocusBridgeArguments.parse(words)
            XCTFail("\(words) was taken: \(request)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testNothingIsTheDefaults() {
        XCTAssertEqual(parsed([]), FocusBridgeArguments())
        XCTAssertEqual(FocusBridgeArguments().replace, false)
        XCTAssertNil(FocusBridgeArguments().downstream)
    }

    func testEveryOptionInBothForms() {
        var expected = FocusBridgeArguments()
        expected.config = "/c.toml"
        expected.downstream = .address
        expected.downstreamName = "org.dunstproject.Bus"
        expected.downstreamAddress = "unix:path=/run/bus"
        expected.stateDirectory = "/state"
        expected.replace = true
        expected.printDownstream = true
        XCTAssertEqual(parsed(["--config", "/c.toml", "--downstream", "address", "--downstream-name", "org.dunstproject.Bus",
                               "--downstream-address", "unix:path=/run/bus", "--state-dir", "/state",
                               "--replace", "--print-downstream"]), expected)
        XCTAssertEqual(parsed(["--print-downstream", "--replace", "--state-dir=/state", "--downstream-address=unix:path=/run/bus",
                               "--downstream-name=org.dunstproject.Bus", "--downstream=address", "--config=/c.toml"]), expected)
        // Only the first `=` splits; a value may hold more.
        XCTAssertEqual(parsed(["--downstream-name=a=b"])?.downstreamName, "a=b")
        XCTAssertEqual(parsed(["--downstream-address", "unix:path=/x,guid=1"])?.downstreamAddress, "unix:path=/x,guid=1")
    }

    func testEveryModeAndOnlyThose() {
        for mode in DownstreamSettings.Mode.allCases {
            XCTAssertEqual(parsed(["--downstream", mode.rawValue])?.downstream, mode)
        }
        for word in ["bad", "LOG", "", "log=x"] {
            XCTAssertEqual(refused(["--downstream", word])?.sentence,
                           "--downstream must be one of auto, spawn, name, address, log (not \"\(word)\").")
        }
        XCTAssertEqual(refused(["--downstream=log=x"])?.sentence,
                       "--downstream must be one of auto, spawn, name, address, log (not \"log=x\").")
    }

    func testAValueIsTheNextWordUnlessItLooksLikeAnOption() {
        XCTAssertEqual(parsed(["--config", "-"])?.config, "-")
        XCTAssertEqual(parsed(["--config", ""])?.config, "")
        XCTAssertEqual(parsed(["--config=-x"])?.config, "-x")
        XCTAssertEqual(parsed(["--config", "help"])?.config, "help")
        // An empty `=` part is none: the next word is the value.
        XCTAssertEqual(parsed(["--config=", "x"])?.config, "x")
        for words in [["--config"], ["--config", "-x"], ["--config", "--replace"], ["--config="], ["--config", "--", "x"],
                      ["--replace", "--config"]] {
            XCTAssertEqual(refused(words)?.sentence, "Missing value for '--config <path>'", "\(words)")
        }
        XCTAssertEqual(refused(["--config"])?.help, "Help:  --config <path>  The configuration file.")
        XCTAssertEqual(refused(["--downstream"])?.sentence, "Missing value for '--downstream <mode>'")
        XCTAssertEqual(refused(["--downstream-name"])?.sentence, "Missing value for '--downstream-name <name>'")
        XCTAssertEqual(refused(["--downstream-address="])?.sentence, "Missing value for '--downstream-address <address>'")
        XCTAssertEqual(refused(["--state-dir", "--replace"])?.sentence, "Missing value for '--state-dir <dir>'")
    }

    func testAFlagTakesNoValue() {
        XCTAssertEqual(refused(["--replace=yes"])?.sentence,
                       "The option '--replace' does not take any value, but 'yes' was specified.")
        XCTAssertEqual(refused(["--print-downstream=1"])?.sentence,
                       "The option '--print-downstream' does not take any value, but '1' was specified.")
        XCTAssertEqual(parsed(["--replace="])?.replace, true)
    }

    func testUnknownOptionsWithTheNearestName() {
        XCTAssertEqual(refused(["--bogus"])?.sentence, "Unknown option '--bogus'")
        XCTAssertEqual(refused(["-x"])?.sentence, "Unknown option '-x'")
        XCTAssertEqual(refused(["-rp"])?.sentence, "Unknown option '-rp'")
        XCTAssertEqual(refused(["--confg", "x"])?.sentence, "Unknown option '--confg'. Did you mean '--config'?")
        XCTAssertEqual(refused(["--conf=x"])?.sentence, "Unknown option '--conf'. Did you mean '--config'?")
        XCTAssertEqual(refused(["-config", "x"])?.sentence, "Unknown option '-config'. Did you mean '--config'?")
        XCTAssertEqual(refused(["--downstrem", "log"])?.sentence, "Unknown option '--downstrem'. Did you mean '--downstream'?")
        XCTAssertEqual(refused(["--downstream-nme", "x"])?.sentence,
                       "Unknown option '--downstream-nme'. Did you mean '--downstream-name'?")
        XCTAssertEqual(refused(["--print-downstrem"])?.sentence,
                       "Unknown option '--print-downstrem'. Did you mean '--print-downstream'?")
        // argument-parser's own options are not focus-bridge's.
        XCTAssertEqual(refused(["--generate-completion-script", "bash"])?.sentence,
                       "Unknown option '--generate-completion-script'")
    }

    func testWordsBeforeTheTerminatorAreUnexpected() {
        XCTAssertEqual(refused(["extra"])?.sentence, "Unexpected argument 'extra'")
        XCTAssertEqual(refused(["help"])?.sentence, "Unexpected argument 'help'")
        XCTAssertEqual(refused(["-"])?.sentence, "Unexpected argument '-'")
        XCTAssertEqual(refused(["--downstream", "spawn", "dunst", "--", "x"])?.sentence, "Unexpected argument 'dunst'")
    }

    /// (argument-parser said the missing value first, wherever it was.)
    func testTheFirstMistakeIsTheOneSaid() {
        XCTAssertEqual(refused(["--bogus", "--config"])?.sentence, "Unknown option '--bogus'")
        XCTAssertEqual(refused(["--downstream", "bad", "extra"])?.sentence,
                       "--downstream must be one of auto, spawn, name, address, log (not \"bad\").")
    }

    func testTheLastOfARepeatedOptionWins() {
        XCTAssertEqual(parsed(["--downstream", "spawn", "--downstream", "log"])?.downstream, .log)
        XCTAssertEqual(parsed(["--config=a", "--config", "b"])?.config, "b")
        XCTAssertEqual(parsed(["--replace", "--replace"])?.replace, true)
    }

    func testEverythingAfterTheTerminatorIsTheCommand() {
        XCTAssertEqual(parsed(["--downstream", "spawn", "--", "dunst", "-c", "x"])?.command, ["dunst", "-c", "x"])
        let passed = parsed(["--", "--config", "x", "--", "--help", "-h", "--version", "--bogus"])
        XCTAssertEqual(passed?.command, ["--config", "x", "--", "--help", "-h", "--version", "--bogus"])
        XCTAssertNil(passed?.config)
        XCTAssertEqual(parsed(["--replace", "--"]), { var a = FocusBridgeArguments(); a.replace = true; return a }())
    }

    /// (argument-parser took `--config --help` for a missing value, and had no nearest name for `--Help`.)
    func testHelpAndVersionWinBeforeTheTerminator() throws {
        for words in [["--help"], ["-h"], ["-help"], ["-h=x"], ["--bogus", "--help"], ["--help", "--bogus"],
                      ["--downstream", "bad", "--help"], ["--config", "--help"], ["--version", "--help"], ["extra", "-h"]] {
            XCTAssertEqual(try FocusBridgeArguments.parse(words), .help, "\(words)")
        }
        for words in [["--version"], ["--version=x"], ["--bogus", "--version"], ["--version", "--downstream", "bad"]] {
            XCTAssertEqual(try FocusBridgeArguments.parse(words), .version, "\(words)")
        }
        XCTAssertEqual(try FocusBridgeArguments.parse(["--", "--help"]), .run({ var a = FocusBridgeArguments(); a.command = ["--help"]; return a }()))
        XCTAssertEqual(try FocusBridgeArguments.parse(["--config=--help"]),
                       .run({ var a = FocusBridgeArguments(); a.config = "--help"; return a }()))
        XCTAssertEqual(refused(["--Help"])?.sentence, "Unknown option '--Help'. Did you mean '--help'?")
    }

    /// What standard error gets: the sentence, the option's help after a missing value, the usage.
    func testTheErrorMessage() {
        let usage = "Usage: focus-bridge [--config <path>] [--downstream <mode>] [--downstream-name <name>] [--downstream-address <address>] [--state-dir <dir>] [--replace] [--print-downstream] -- [<command> ...]\n  See 'focus-bridge --help' for more information.\n"
        XCTAssertEqual(refused(["--bogus"])?.message, "focus-bridge: Unknown option '--bogus'\n" + usage)
        XCTAssertEqual(refused(["--state-dir"])?.message,
                       "focus-bridge: Missing value for '--state-dir <dir>'\nHelp:  --state-dir <dir>  The state folder (default $XDG_STATE_HOME/focus-bridge).\n" + usage)
    }

    /// argument-parser's help, to the byte.
    func testTheHelpText() {
        XCTAssertEqual(FocusBridgeArguments.helpText, #"""
            OVERVIEW: Own org.freedesktop.Notifications and forward to the real
            notification daemon.

            Everything after -- is the daemon command for spawn mode, e.g. `focus-bridge
            --downstream spawn -- dunst`.

            USAGE: focus-bridge [--config <path>] [--downstream <mode>] [--downstream-name <name>] [--downstream-address <address>] [--state-dir <dir>] [--replace] [--print-downstream] -- [<command> ...]

            ARGUMENTS:
              <command>               The daemon command for spawn mode.

            OPTIONS:
              --config <path>         The configuration file.
              --downstream <mode>     Where delivered notifications go: auto, spawn, name,
                                      address or log.
              --downstream-name <name>
                                      The daemon's bus name (name and address modes).
              --downstream-address <address>
                                      The bus address of the daemon (address mode).
              --state-dir <dir>       The state folder (default
                                      $XDG_STATE_HOME/focus-bridge).
              --replace               Take org.freedesktop.Notifications from an owner that
                                      allows replacement.
              --print-downstream      Print the downstream that would be used and why, and
                                      whether org.freedesktop.Notifications is free, then
                                      exit.
              --version               Show the version.
              -h, --help              Show help information.


            """#)
    }
}
