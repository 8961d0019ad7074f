import FocusBridgeLoop
import FocusBridgeTestSupport
import Foundation
import XCTest

/// Child processes as the bridge runs its daemon: started from PATH with added variables, their
/// output read, their end told on the loop in the words the log uses, a missing program refused.
final class SubprocessTests: XCTestCase {
    func testItsEndIsToldWithItsStatus() throws {
        let child = try Subprocess(["sh", "-c", "exit 3"])
        var ending: String?
        child.onExit { ending = $0 }
        waitOnMainLoop(until: { ending != nil }, seconds: 10)
        XCTAssertEqual(ending, "exited with status 3")
        XCTAssertNil(child.processID, "gone once it has exited")
        // Asked again after the end: told on the loop, not at once.
        var again: String?
        child.onExit { again = $0 }
        XCTAssertNil(again)
        waitOnMainLoop(until: { again != nil }, seconds: 5)
        XCTAssertEqual(again, "exited with status 3")
    }

    func testASignalledChildSaysWhichSignal() throws {
        let child = try Subprocess(["sleep", "30"])
        XCTAssertNotNil(child.processID)
        var ending: String?
        child.onExit { ending = $0 }
        child.send(signal: SIGTERM)
        XCTAssertTrue(child.waitForExit(milliseconds: 10_000))
        XCTAssertEqual(ending, "was killed by signal \(SIGTERM)")
    }

    func testItsOutputAndEnvironment() throws {
        let child = try Subprocess(["sh", "-c", "echo \"$FOCUS_BRIDGE_TEST_WORD\"; printf 'last'"],
                                   environment: ["FOCUS_BRIDGE_TEST_WORD": "hello there"], captureStandardOutput: true)
        XCTAssertEqual(child.readLine(), "hello there")
        XCTAssertEqual(child.readLine(), "last", "a last line without its newline")
        XCTAssertNil(child.readLine(), "the end of its output")
        XCTAssertTrue(child.waitForExit(milliseconds: 10_000))
    }

    func testAProgramNotFoundIsRefusedWithGLibsWords() {
        XCTAssertThrowsError(try Subprocess(["focus-bridge-no-such-program-\(getpid())"])) { error in
            XCTAssertFalse("\(error)".isEmpty)
            XCTAssertNotEqual("\(error)", "unknown error")
        }
    }

    func testWaitingIsBounded() throws {
        let child = try Subprocess(["sleep", "30"])
        XCTAssertFalse(child.waitForExit(milliseconds: 100), "still running")
        child.send(signal: SIGKILL)
        XCTAssertTrue(child.waitForExit(milliseconds: 10_000))
    }
}
