import FocusBridgeLoop
import FocusBridgeTestSupport
import Foundation
import XCTest

/// The main loop as the bridge leans on it: a timer fires once, after its delay and not before; a
/// cancelled one never does; idle work waits for what is due and runs once; work handed over from
/// another thread runs on the loop's; a Unix signal reaches its handler on the loop.
final class MainLoopTests: XCTestCase {
    /// Seconds on the monotonic clock.
    private func monotonic() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    func testATimerFiresOnceAfterItsDelay() {
        let start = monotonic()
        var fired: [Double] = []
        MainLoop.after(milliseconds: 80) { fired.append(self.monotonic()) }
        MainLoop.iterate(blocking: false)
        XCTAssertEqual(fired, [], "not before its delay")
        waitOnMainLoop(until: { !fired.isEmpty }, seconds: 5)
        XCTAssertGreaterThanOrEqual((fired.first ?? 0) - start, 0.075, "fired early")
        // Another timer, later, as a witness: the first has not fired again by then.
        var later = false
        MainLoop.after(milliseconds: 120) { later = true }
        waitOnMainLoop(until: { later }, seconds: 5)
        XCTAssertEqual(fired.count, 1, "a one-shot timer fires once")
    }

    func testACancelledTimerNeverFires() {
        var cancelled = false
        var witness = false
        let source = MainLoop.after(milliseconds: 20) { cancelled = true }
        XCTAssertNotEqual(source, .none)
        MainLoop.cancel(source)
        MainLoop.after(milliseconds: 100) { witness = true }
        waitOnMainLoop(until: { witness }, seconds: 5)
        XCTAssertFalse(cancelled)
        MainLoop.cancel(.none)  // no source: nothing to remove, no GLib warning
    }

    /// Idle work is how the bridge batches: what is already due (a timer, a readable socket) runs
    /// first, the idle work once after it, however many passes the loop makes.
    func testIdleWorkRunsOnceAfterWhatIsDue() {
        var order: [String] = []
        MainLoop.whenIdle { order.append("idle") }
        MainLoop.after(milliseconds: 0) { order.append("timer") }
        waitOnMainLoop(until: { order.count == 2 }, seconds: 5)
        XCTAssertEqual(order, ["timer", "idle"])
        var witness = false
        MainLoop.after(milliseconds: 50) { witness = true }
        waitOnMainLoop(until: { witness }, seconds: 5)
        XCTAssertEqual(order, ["timer", "idle"], "idle work runs once")
    }

    func testWorkFromAnotherThreadRunsOnTheLoopsThread() {
        /// Written on the loop's thread only (by the invoked work), read there too.
        final class Seen: @unchecked Sendable { var thread: pthread_t? }
        let seen = Seen()
        let loopThread = pthread_self()
        let thread = Thread { MainLoop.invoke { seen.thread = pthread_self() } }
        thread.start()
        waitOnMainLoop(until: { seen.thread != nil }, seconds: 5)
        XCTAssertEqual(seen.thread.map { pthread_equal($0, loopThread) }, 1, "ran on the thread that iterates the loop")
    }

    func testASignalReachesItsHandlerOnTheLoop() {
        var received = 0
        let source = MainLoop.onSignal(SIGUSR1) { received += 1 }
        defer { MainLoop.cancel(source) }
        XCTAssertEqual(raise(SIGUSR1), 0)
        XCTAssertEqual(received, 0, "handled on the loop, not in the signal handler")
        waitOnMainLoop(until: { received == 1 }, seconds: 5)
        XCTAssertEqual(raise(SIGUSR1), 0)
        waitOnMainLoop(until: { received == 2 }, seconds: 5, "the handler stays for the next signal")
    }
}
