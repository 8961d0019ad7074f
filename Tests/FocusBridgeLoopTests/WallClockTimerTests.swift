import FocusBridgeLoop
import FocusBridgeTestSupport
import Foundation
import XCTest

/// A wall-clock timer (the summary, the review, a snooze's end) fires at its instant, not before;
/// a new deadline replaces the old one; a deadline already past fires at once.
final class WallClockTimerTests: XCTestCase {
    /// Seconds since 1970 on the real-time clock, as the timer's deadline is given.
    private func wallClock() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    func testItFiresAtItsInstantNotBefore() {
        var firedAt: [Double] = []
        let timer = WallClockTimer { firedAt.append(self.wallClock()) }
        let deadline = wallClock() + 0.3
        timer.schedule(atSecondsSince1970: deadline)
        waitOnMainLoop(until: { !firedAt.isEmpty }, seconds: 5)
        XCTAssertGreaterThanOrEqual(firedAt.first ?? 0, deadline, "fired before its instant")
        XCTAssertEqual(firedAt.count, 1)
    }

    /// Told by when it fired, not by a look in between: a loaded machine may turn the loop late.
    func testANewDeadlineReplacesTheOld() {
        var firedAt: [Double] = []
        let timer = WallClockTimer { firedAt.append(self.wallClock()) }
        let start = wallClock()
        timer.schedule(atSecondsSince1970: start + 0.1)
        timer.schedule(atSecondsSince1970: start + 0.5)
        waitOnMainLoop(until: { !firedAt.isEmpty }, seconds: 5)
        XCTAssertGreaterThanOrEqual(firedAt.first ?? 0, start + 0.5, "fired at the first deadline, which was replaced")
        var witness = false
        MainLoop.after(milliseconds: 100) { witness = true }
        waitOnMainLoop(until: { witness }, seconds: 5)
        XCTAssertEqual(firedAt.count, 1, "once, at the new deadline")
    }

    func testADeadlinePastFiresAtOnceAndNoDeadlineNever() {
        var fired = 0
        let timer = WallClockTimer { fired += 1 }
        timer.schedule(atSecondsSince1970: wallClock() - 60)
        waitOnMainLoop(until: { fired == 1 }, seconds: 5)
        timer.schedule(atSecondsSince1970: nil)
        var witness = false
        MainLoop.after(milliseconds: 200) { witness = true }
        waitOnMainLoop(until: { witness }, seconds: 5)
        XCTAssertEqual(fired, 1, "without a deadline it only watches for clock changes")
    }

    func testAGoneTimerNeverCallsBack() {
        var fired = false
        var timer: WallClockTimer? = WallClockTimer { fired = true }
        timer?.schedule(atSecondsSince1970: wallClock() + 0.05)
        timer = nil
        var witness = false
        MainLoop.after(milliseconds: 200) { witness = true }
        waitOnMainLoop(until: { witness }, seconds: 5)
        XCTAssertFalse(fired)
    }
}
