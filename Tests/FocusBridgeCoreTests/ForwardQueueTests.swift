import FocusBridgeCore
import XCTest

final class ForwardQueueTests: XCTestCase {
    func testNoMoreThanMaxInFlightAndFirstInFirstOut() {
        var queue = ForwardQueue<String>(maxInFlight: 3)
        for id in UInt32(1)...5 { queue.enqueue(id, "n\(id)") }
        XCTAssertEqual([queue.next()?.id, queue.next()?.id, queue.next()?.id], [1, 2, 3])
        XCTAssertNil(queue.next(), "three in flight: the rest wait")
        XCTAssertEqual(queue.inFlight, 3)
        queue.finish(2)
        XCTAssertEqual(queue.next()?.id, 4)
        XCTAssertNil(queue.next())
    }

    func testWorkForABusyNotificationWaitsForItsCall() {
        var queue = ForwardQueue<String>(maxInFlight: 8)
        queue.enqueue(1, "show")
        XCTAssertEqual(queue.next()?.work, "show")
        queue.enqueue(1, "replace")
        queue.enqueue(2, "other")
        XCTAssertEqual(queue.next()?.id, 2, "the replacement waits; others pass")
        XCTAssertNil(queue.next())
        queue.finish(1)
        XCTAssertEqual(queue.next()?.work, "replace")
    }

    func testWaitingWorkIsMergedSoOnlyTheNewestIsSent() {
        var queue = ForwardQueue<String>(maxInFlight: 1)
        queue.enqueue(9, "blocker")
        _ = queue.next()
        queue.enqueue(1, "v1")
        queue.enqueue(1, "v2")
        queue.enqueue(1, "v3")
        XCTAssertEqual(queue.queued, 1)
        queue.finish(9)
        XCTAssertEqual(queue.next()?.work, "v3")
    }

    func testWithdrawAndRetry() {
        var queue = ForwardQueue<String>(maxInFlight: 8)
        queue.enqueue(1, "a")
        queue.enqueue(2, "b")
        XCTAssertEqual(queue.withdraw(1), "a")
        XCTAssertNil(queue.withdraw(1))
        let job = queue.next()!
        XCTAssertEqual(job.id, 2)
        queue.retry(job) // the daemon went away
        XCTAssertEqual(queue.inFlight, 0)
        XCTAssertEqual(queue.next()?.work, "b", "sent again, first")
    }

    func testALongFloodDrainsInOrder() {
        var queue = ForwardQueue<UInt32>(maxInFlight: 8)
        for id in UInt32(1)...10_000 { queue.enqueue(id, id) }
        var sent: [UInt32] = []
        while let job = queue.next() {
            sent.append(job.work)
            queue.finish(job.id)
        }
        XCTAssertEqual(sent, Array(1...10_000))
        XCTAssertEqual(queue.queued, 0)
    }

    func testAfterDrainingABurstTheQueueWorksAsNew() {
        var queue = ForwardQueue<UInt32>(maxInFlight: 2, weigh: { Int($0) })
        for id in UInt32(1)...500 { queue.enqueue(id, 1) }
        XCTAssertEqual(queue.withdraw(3), 1)
        var sent: [UInt32] = []
        while let job = queue.next() {
            sent.append(job.id)
            queue.finish(job.id)
        }
        XCTAssertEqual(sent.count, 499)
        XCTAssertEqual(queue.queuedWeight, 0)
        queue.enqueue(7, 5)
        queue.enqueue(8, 6)
        queue.enqueue(7, 9) // merged while waiting
        XCTAssertEqual(queue.queued, 2)
        XCTAssertEqual(queue.queuedWeight, 15)
        let first = queue.next()!
        XCTAssertEqual([first.id, first.work], [7, 9])
        queue.retry(first)
        XCTAssertEqual(queue.next()?.id, 7, "put back at the front")
        XCTAssertEqual(queue.next()?.id, 8)
        XCTAssertNil(queue.next())
    }
}

final class ForwardQueueBoundTests: XCTestCase {
    func testDropOldestGivesUpTheOldestWaiting() {
        var queue = ForwardQueue<String>(maxInFlight: 1)
        for id in UInt32(1)...4 { queue.enqueue(id, "n\(id)") }
        let sent = queue.next()!
        XCTAssertEqual(sent.id, 1)
        XCTAssertEqual(queue.dropOldest()?.id, 2, "in-flight work is not dropped")
        XCTAssertEqual(queue.queued, 2)
        queue.finish(1)
        XCTAssertEqual(queue.next()?.id, 3)
    }

    /// What waits is weighed, so the bridge can bound it by size: every way in and out counts.
    func testTheWeightOfWhatWaits() {
        var queue = ForwardQueue<String>(maxInFlight: 1, weigh: { $0.utf8.count })
        queue.enqueue(1, "aaaa")
        queue.enqueue(2, "bb")
        XCTAssertEqual(queue.queuedWeight, 6)
        queue.enqueue(2, "bbbbbb")                 // merged: the newest replaces
        XCTAssertEqual(queue.queuedWeight, 10)
        let first = queue.next()!                  // in flight: no longer waiting
        XCTAssertEqual(queue.queuedWeight, 6)
        queue.enqueue(1, "c")                      // parked behind its call
        XCTAssertEqual(queue.queuedWeight, 7)
        queue.retry(first)                         // the parked newer work supersedes it
        XCTAssertEqual(queue.queuedWeight, 7)
        XCTAssertEqual(queue.withdraw(2), "bbbbbb")
        XCTAssertEqual(queue.queuedWeight, 1)
        XCTAssertEqual(queue.dropOldest()?.work, "c")
        XCTAssertEqual(queue.queuedWeight, 0)
        XCTAssertEqual(queue.queued, 0)
    }
}
