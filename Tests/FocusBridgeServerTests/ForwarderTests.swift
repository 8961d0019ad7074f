import FocusBridgeCore
import FocusBridgeDBus
@testable import FocusBridgeServer
import XCTest

/// `Forwarder` against a fake daemon (`FakeDownstream`): the in-flight bound, the daemon's IDs,
/// retries while the daemon is away, giving up with a reason, and nothing sent before the bridge
/// says it may.
final class ForwarderTests: XCTestCase {
    /// The bridge's side, recorded: which IDs are alive, what was given up, what was taken.
    final class Events: ForwarderEvents {
        var mayForward = true
        var alive: Set<UInt32> = []
        var givenUp: [(id: UInt32, reason: CloseReason)] = []
        var taken = 0

        func isAlive(_ id: UInt32) -> Bool { alive.contains(id) }
        func givenUp(_ id: UInt32, reason: CloseReason) { givenUp.append((id, reason)) }
        func took() { taken += 1 }
        func trimming() {}
    }

    private let logs = LogRecorder()
    private let daemon = FakeDownstream()
    private let events = Events()
    private var givenUp: [(id: UInt32, reason: CloseReason)] { events.givenUp }
    private var took: Int { events.taken }

    private func makeForwarder() -> Forwarder<DaemonTarget> {
        let forwarder = Forwarder(downstream: daemon, logger: logs.logger)
        forwarder.events = events
        return forwarder
    }

    private static let refused = DBusError(name: DBusError.invalidArgs, message: "no", isRemote: true)
    private static let absent = DBusError(name: DBusError.serviceUnknown, message: "gone", isRemote: true)

    func testAtMostEightCallsAreInFlightAndTheRestGoInOrder() {
        let forwarder = makeForwarder()
        for id: UInt32 in 1...20 { forwarder.send(forwarded(id)) }
        XCTAssertEqual(daemon.calls.map(\.notification.id), Array(1...8))
        XCTAssertEqual(forwarder.inFlight, 8)
        XCTAssertEqual(forwarder.queued, 12)

        daemon.answerNext(.success(101))
        XCTAssertEqual(daemon.calls.map(\.notification.id), Array(1...9), "one answer, one more call")
        XCTAssertEqual(forwarder.inFlight, 8)
        var daemonID: UInt32 = 102
        while daemon.unanswered > 0 {
            XCTAssertLessThanOrEqual(daemon.unanswered, 8)
            daemon.answerNext(.success(daemonID))
            daemonID += 1
        }
        XCTAssertEqual(daemon.calls.map(\.notification.id), Array(1...20), "first in, first out")
        XCTAssertEqual(forwarder.delivered, 20)
        XCTAssertEqual(took, 20)
        XCTAssertEqual(forwarder.inFlight, 0)
        XCTAssertEqual(forwarder.queued, 0)
        XCTAssertTrue(givenUp.isEmpty)
    }

    func testTheDaemonsIDIsMappedToTheBridgesBothWays() {
        let forwarder = makeForwarder()
        events.alive = [1]
        forwarder.send(forwarded(1))
        XCTAssertEqual(daemon.calls.first?.replacing, 0, "a new notification replaces nothing")
        daemon.answerNext(.success(501))

        XCTAssertEqual(forwarder.id(forDaemonID: 501), 1, "a signal about 501 is about 1")
        XCTAssertEqual(forwarder.daemonIDs.daemonID(of: 1), 501)
        XCTAssertNil(forwarder.id(forDaemonID: 1))

        forwarder.send(forwarded(1, summary: "Updated"))
        XCTAssertEqual(daemon.calls.last?.replacing, 501, "a replacement replaces the daemon's copy")
        daemon.answerNext(.success(501))

        forwarder.closeNow(1)
        XCTAssertEqual(daemon.closed.map(\.daemonID), [501])
        XCTAssertEqual(daemon.closed.map(\.bridgeID), [1])

        XCTAssertEqual(forwarder.daemonGone(), [1])
        XCTAssertNil(forwarder.id(forDaemonID: 501), "what the daemon showed is forgotten with it")
    }

    /// Only live notifications get a daemon ID: one closed meanwhile is not brought back.
    func testAnAnswerForANotificationNoLongerAliveBindsNothing() {
        let forwarder = makeForwarder()
        events.alive = [1]
        forwarder.send(forwarded(1))
        events.alive = []
        forwarder.forget(1)
        daemon.answerNext(.success(501))
        XCTAssertNil(forwarder.id(forDaemonID: 501))
        XCTAssertNil(forwarder.daemonIDs.daemonID(of: 1))
        XCTAssertEqual(forwarder.delivered, 1)
    }

    func testWhileTheDaemonIsAwayWorkWaitsAndIsSentAgainWhenItIsBack() {
        let forwarder = makeForwarder()
        forwarder.send(forwarded(1))
        forwarder.send(forwarded(2))
        daemon.isConnected = false
        daemon.answerNext(.failure(Self.absent))  // it went away with the call
        XCTAssertEqual(forwarder.queued, 1, "put back to be sent again")
        daemon.answerNext(.success(502))
        forwarder.send(forwarded(3))
        XCTAssertEqual(daemon.calls.count, 2, "nothing is sent while the daemon is away")
        XCTAssertEqual(forwarder.queued, 2)

        daemon.isConnected = true
        forwarder.pump()  // as the bridge does when the daemon is back
        XCTAssertEqual(daemon.calls.map(\.notification.id), [1, 2, 1, 3], "the one it took with it first, then the rest in order")
        while daemon.unanswered > 0 { daemon.answerNext(.success(600 + UInt32(daemon.answered))) }
        XCTAssertTrue(givenUp.isEmpty, "nothing was given up")
        XCTAssertEqual(forwarder.delivered, 3)
    }

    func testANotificationTheDaemonRefusesIsGivenUpAsUndefined() {
        let forwarder = makeForwarder()
        forwarder.send(forwarded(1))
        forwarder.send(forwarded(2))
        daemon.answerNext(.failure(Self.refused))
        XCTAssertEqual(givenUp.map(\.id), [1])
        XCTAssertEqual(givenUp.map(\.reason), [.undefined])
        XCTAssertTrue(logs.lines.contains { $0.level == .warning && $0.message.contains("did not take notification 1") })
        daemon.answerNext(.success(502))
        XCTAssertEqual(forwarder.delivered, 1)
        XCTAssertEqual(daemon.calls.count, 2, "a refusal is not retried")
    }

    /// A live daemon that does not answer in time may well show the notification: it is neither
    /// retried (it could show twice) nor said closed.
    func testANoReplyFromALiveDaemonIsNeitherRetriedNorGivenUp() {
        let forwarder = makeForwarder()
        forwarder.send(forwarded(1))
        daemon.answerNext(.failure(DBusError(name: DBusError.noReply, message: "timed out")))
        XCTAssertTrue(givenUp.isEmpty)
        XCTAssertEqual(daemon.calls.count, 1)
        XCTAssertEqual(forwarder.inFlight, 0)
        XCTAssertEqual(forwarder.queued, 0)
    }

    func testNothingGoesToTheDaemonBeforeTheBridgeSaysItMay() {
        let forwarder = makeForwarder()
        events.mayForward = false
        forwarder.send(forwarded(1))
        forwarder.close(1)
        XCTAssertEqual(daemon.calls.count, 0)
        XCTAssertEqual(forwarder.queued, 1, "the close merged with the notify that never went: only the close waits")
        events.mayForward = true
        forwarder.send(forwarded(2))
        XCTAssertEqual(daemon.calls.map(\.notification.id), [2])
        XCTAssertEqual(givenUp.map(\.id), [1], "closed before it was ever sent: closed here")
        XCTAssertEqual(givenUp.map(\.reason), [.closedByCall])
    }

    func testClosingAShownNotificationAsksTheDaemonAndOneNeverShownIsClosedHere() {
        let forwarder = makeForwarder()
        events.alive = [1]
        forwarder.send(forwarded(1))
        daemon.answerNext(.success(501))
        forwarder.close(1)
        XCTAssertEqual(daemon.closed.map(\.daemonID), [501])
        XCTAssertTrue(givenUp.isEmpty)

        forwarder.close(9)
        XCTAssertEqual(daemon.closed.count, 1)
        XCTAssertEqual(givenUp.map(\.id), [9])
        XCTAssertEqual(givenUp.map(\.reason), [.closedByCall])
    }

    /// While the daemon is away memory stays bounded: past `maxQueued` the oldest waiting
    /// notification is given up.
    func testPastTheQueuesBoundTheOldestIsGivenUp() {
        let forwarder = makeForwarder()
        daemon.isConnected = false
        for id in 1...UInt32(Forwarder<DaemonTarget>.maxQueued + 2) { forwarder.send(forwarded(id)) }
        XCTAssertEqual(forwarder.queued, Forwarder<DaemonTarget>.maxQueued)
        XCTAssertEqual(givenUp.map(\.id), [1, 2])
        XCTAssertEqual(givenUp.map(\.reason), [.undefined, .undefined])
        daemon.isConnected = true
        forwarder.pump()
        XCTAssertEqual(daemon.calls.first?.notification.id, 3)
    }
}
