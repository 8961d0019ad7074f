import FocusBridgeCore
import XCTest

final class StartAttemptsTests: XCTestCase {
    func testBacksOffThenGivesUpAfterTheLimit() {
        var attempts = StartAttempts()
        XCTAssertEqual(attempts.failed("a"), .retry(afterMilliseconds: 250))
        XCTAssertEqual(attempts.failed("b"), .retry(afterMilliseconds: 500))
        XCTAssertEqual(attempts.failed("c"), .retry(afterMilliseconds: 1_000))
        XCTAssertEqual(attempts.failed("d"), .retry(afterMilliseconds: 2_000))
        XCTAssertEqual(attempts.failed("e"), .giveUp)
        XCTAssertEqual(attempts.failures, StartAttempts.limit)
        XCTAssertEqual(attempts.lastReason, "e")
    }

    func testServingStartsTheCountAgain() {
        var attempts = StartAttempts()
        for _ in 1..<StartAttempts.limit { _ = attempts.failed("x") }
        attempts.served()
        XCTAssertEqual(attempts.failures, 0)
        XCTAssertNil(attempts.lastReason)
        XCTAssertEqual(attempts.failed("y"), .retry(afterMilliseconds: 250))
    }
}

final class ProcessCommandLineTests: XCTestCase {
    func testParsesProcCmdline() {
        XCTAssertEqual(ProcessCommandLine.parse(Array("dunst\0-config\0/x y\0".utf8)), ["dunst", "-config", "/x y"])
        XCTAssertEqual(ProcessCommandLine.parse(Array("a\0\0b\0".utf8)), ["a", "", "b"], "empty arguments are kept")
        XCTAssertNil(ProcessCommandLine.parse([]))
    }

    func testABareNameIsMadeAbsoluteFromExe() {
        XCTAssertEqual(ProcessCommandLine.runnable(["notification-daemon"], executablePath: "/usr/lib/notification-daemon/notification-daemon"),
                       ["/usr/lib/notification-daemon/notification-daemon"])
        XCTAssertEqual(ProcessCommandLine.runnable(["/usr/bin/python3", "x.py"], executablePath: "/usr/bin/python3.11"),
                       ["/usr/bin/python3", "x.py"], "a path is kept (interpreters, wrappers)")
        XCTAssertEqual(ProcessCommandLine.runnable(["d"], executablePath: "/usr/bin/d (deleted)"), ["d"])
    }

    func testShellLineQuotes() {
        XCTAssertEqual(ProcessCommandLine.shellLine(["/usr/bin/dunst", "-config", "it's here", ""]),
                       "/usr/bin/dunst -config 'it'\\''s here' ''")
    }
}
