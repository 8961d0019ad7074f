@testable import FocusBridgeDBus
import Glibc
import XCTest

nonisolated(unsafe) private var usr1Seen: Int32 = 0

/// `withSignalsHeld` around sd-bus's waits: a signal that arrives during the wait does not cut
/// it short (EINTR: RequestName failed under a SIGTERM at start-up) and is delivered right after.
final class SignalsHeldTests: XCTestCase {
    func testASignalDuringTheWaitIsHeldUntilItEnds() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in usr1Seen += 1 }
        var previous = sigaction()
        sigaction(SIGUSR1, &action, &previous)
        defer { sigaction(SIGUSR1, &previous, nil) }
        usr1Seen = 0

        var seenDuring: Int32 = -1
        let result = withSignalsHeld {
            // to this thread: sent to the process, the signal would go to another of the test
            // runner's threads, which do not hold it
            pthread_kill(pthread_self(), SIGUSR1)
            let waited = poll(nil, 0, 20) // as sd-bus's ppoll: a delivered signal would make it -1, EINTR
            seenDuring = usr1Seen
            return waited
        }
        XCTAssertEqual(result, 0, "the wait was interrupted")
        XCTAssertEqual(seenDuring, 0, "the signal was delivered during the wait")
        XCTAssertEqual(usr1Seen, 1, "the signal was lost")
    }
}
