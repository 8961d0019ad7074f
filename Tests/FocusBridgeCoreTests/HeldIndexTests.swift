import FocusBridgeCore
import FocusBridgeTime
import XCTest

/// `HeldIndex`, the ledger's held part: who owns what is held, snoozes, digests, the replay
/// backlog, and counts kept without scanning — in memory, as the ledger changes it.
final class HeldIndexTests: XCTestCase {
    private let alice = Caller(connection: ":1.10", userID: 1000)
    private let aliceAgain = Caller(connection: ":1.11", userID: 1000)
    private let bob = Caller(connection: ":1.20", userID: 1001)
    private let base = Instant(timeIntervalSince1970: 1_800_000_000)

    private func item(_ id: UInt32, reason: HeldNotification.Reason = .focus("Work"), holders: [Caller]? = nil,
                      received: Double = 0) -> HeldNotification {
        HeldNotification(id: id, reason: reason, app: "Mail", summary: "held \(id)", body: "", level: .active,
                         relevance: 0.5, received: base.addingTimeInterval(received), holders: holders ?? [alice],
                         processID: nil)
    }

    private func payload(_ id: UInt32) -> HeldPayload { HeldPayload(type: "(s)", bytes: [UInt8(id)]) }

    private func hold(_ item: HeldNotification, in held: inout HeldIndex) {
        held.hold(item, payload: payload(item.id))
    }

    func testWhatARestartRestoresWaitsAgain() {
        let held = HeldIndex(restoring: [item(3, received: 3), item(1, received: 1)])
        XCTAssertEqual(held.all.map(\.id), [1, 3], "oldest first")
        XCTAssertEqual(held.waiting(.heldFocus).map(\.id), [1, 3])
        XCTAssertEqual(held.focusNames(besides: nil), ["Work"])
        XCTAssertEqual(held.focusNames(besides: "Work"), [])
        XCTAssertEqual(held.unwrittenCount, 0, "the store has them")
    }

    func testSnoozesAreCountedApartFromTheFocusAndComeBackInTheOrderTheyEnd() {
        var held = HeldIndex()
        hold(item(1), in: &held)
        hold(item(2, reason: .snooze(until: base.addingTimeInterval(600))), in: &held)
        hold(item(3, reason: .snooze(until: base.addingTimeInterval(60))), in: &held)
        XCTAssertEqual(held.waitingCount(.heldFocus), 1, "a snoozed one is not the Focus's")
        XCTAssertEqual(held.waitingCount(.heldSummary), 0)
        XCTAssertEqual(held.snoozedCount, 2)
        XCTAssertEqual(held.snoozed.map(\.id), [3, 2], "soonest end first")
        XCTAssertEqual(held.nextSnoozeEnd, base.addingTimeInterval(60))
        XCTAssertEqual(held.focusNames(besides: nil), ["Work"], "a Focus's end releases no snooze")
        held.setReason(3, .focus("Work"))
        XCTAssertEqual(held.snoozed.map(\.id), [2])
        XCTAssertEqual(held.snoozedUntil(2), base.addingTimeInterval(600))
        XCTAssertEqual(held.waiting(for: "Work").map(\.id), [1, 3])
        XCTAssertFalse(held.setReason(9, .summary), "nothing held under that ID")
    }

    func testAQueuedReplayGoesOutOnceAndASnoozeOnItsWayIsNotDueAgain() {
        var held = HeldIndex()
        hold(item(1, reason: .snooze(until: base)), in: &held)
        hold(item(2), in: &held)
        held.queueReplay([1])
        XCTAssertEqual(held.snoozed.map(\.id), [], "on its way out: the timer must not find it due again")
        XCTAssertNil(held.nextSnoozeEnd)
        XCTAssertEqual(held.snoozedCount, 1, "still held until it goes into the forward queue")
        held.queueReplay([2, 1], showAll: true)
        var out: [UInt32] = []
        while let next = held.nextReplay() { out.append(next.item.id) }
        XCTAssertEqual(out, [1, 2], "each once, in the order first asked")
    }

    func testHoldersAndOwnershipFollowTheCaller() {
        var held = HeldIndex()
        hold(item(1, holders: [alice]), in: &held)
        XCTAssertEqual(held.holders(of: 1), [alice])
        XCTAssertNil(held.holders(of: 0), "0 is no ID")
        XCTAssertNil(held.holders(of: 2))
        XCTAssertTrue(held.owns(1, by: alice))
        XCTAssertTrue(held.owns(1, by: aliceAgain), "the same user, another connection")
        XCTAssertFalse(held.owns(1, by: bob), "another user does not own it")
        XCTAssertFalse(held.owns(1, by: Caller(connection: ":1.30")), "nor a caller of unknown user")
        XCTAssertFalse(held.owns(2, by: alice), "nothing held under that ID")
    }

    func testADigestStandsForItsMembersUntilItGoes() {
        var held = HeldIndex()
        for id: UInt32 in 1...3 { hold(item(id, received: Double(id)), in: &held) }
        hold(item(4, reason: .summary, received: 4), in: &held)
        held.assign([1, 2], toDigest: 50)
        XCTAssertEqual(Set(held.members(ofDigest: 50).map(\.id)), [1, 2])
        XCTAssertEqual(held.digest(of: 1), 50)
        XCTAssertNil(held.digest(of: 3))
        XCTAssertEqual(held.waiting(.heldFocus).map(\.id), [3], "what a digest stands for waits no more")
        XCTAssertEqual(held.waiting(.heldSummary).map(\.id), [4])
        XCTAssertNil(held.holders(of: 1), "in a digest: no longer replaced or closed by its sender")
        XCTAssertFalse(held.owns(1, by: alice))
        XCTAssertEqual(held.openDigests().mapValues { Set($0.map(\.id)) }, [50: [1, 2]])

        XCTAssertEqual(held.digestsGone([51]), [], "another digest going changes nothing")
        XCTAssertEqual(held.digest(of: 1), 50)
        XCTAssertEqual(Set(held.digestsGone([50])), [1, 2])
        XCTAssertNil(held.digest(of: 1))
        XCTAssertEqual(held.openDigests().count, 0)
        XCTAssertEqual(held.waiting(.heldFocus).map(\.id), [1, 2, 3], "they wait again")
        XCTAssertEqual(held.holders(of: 1), [alice])
    }

    func testTheReplayBacklogGoesInOrderWithItsCauseAndUnwrittenArguments() {
        var held = HeldIndex()
        for id: UInt32 in 1...4 { hold(item(id, received: Double(id)), in: &held) }
        held.written([1, 2])
        XCTAssertFalse(held.replayWaits)
        held.queueReplay([3, 1], cause: "the end of Work")
        held.queueReplay([4, 2])
        held.remove([4])  // removed before its turn: skipped
        XCTAssertTrue(held.replayWaits)
        var replayed: [(UInt32, HeldPayload?, String?)] = []
        while let (item, payload, cause) = held.nextReplay() {
            replayed.append((item.id, payload, cause))
            XCTAssertNotNil(held[item.id], "it stays held until removed")
        }
        XCTAssertEqual(replayed.map(\.0), [3, 1, 2], "in the order queued")
        XCTAssertEqual(replayed.map(\.1), [payload(3), nil, nil], "in memory until written, then the store's")
        XCTAssertEqual(replayed.map(\.2), ["the end of Work", "the end of Work", nil])
        XCTAssertFalse(held.replayWaits)
        XCTAssertNil(held.nextReplay())
        XCTAssertEqual(held.remove([1, 2, 3, 9]), [1, 2, 3], "what was held")
        XCTAssertEqual(held.count, 0)
        XCTAssertEqual(held.unwrittenCount, 0)
    }

    func testAShowAllKeepsItsReplaysOutOfTheDigest() {
        var held = HeldIndex()
        for id: UInt32 in 1...2 { hold(item(id, received: Double(id)), in: &held) }
        held.assign([1, 2], toDigest: 50)
        held.queueReplay([1, 2], showAll: true, cause: "Show All")
        XCTAssertEqual(held.members(ofDigest: 50).map(\.id), [], "the digest closing does not end what is replayed")
        XCTAssertEqual(held.openDigests().count, 0)
        let first = held.nextReplay()
        XCTAssertEqual(first?.item.id, 1)
        XCTAssertEqual(first?.cause, "Show All")
        XCTAssertEqual(held.members(ofDigest: 50).map(\.id), [1], "taken out of the backlog: the digest's again until removed")
    }

    /// The counts status and the tray read at every change are kept as things are held, sent in
    /// a digest, replayed and removed; they agree with the lists at every step.
    func testTheCountsFollowEveryChangeAndAgreeWithTheLists() {
        var held = HeldIndex()
        func check(_ step: String) {
            XCTAssertEqual(held.waitingCount(.heldFocus), held.waiting(.heldFocus).count, step)
            XCTAssertEqual(held.waitingCount(.heldSummary), held.waiting(.heldSummary).count, step)
            for name in ["Work", "Sleep"] {
                XCTAssertEqual(held.waitingCount(for: name), held.waiting(for: name).count, "\(step): \(name)")
            }
            XCTAssertEqual(held.count, held.all.count, step)
        }
        for id: UInt32 in 1...6 { hold(item(id, received: Double(id)), in: &held) }
        for id: UInt32 in 7...8 { hold(item(id, reason: .focus("Sleep"), received: Double(id)), in: &held) }
        for id: UInt32 in 9...10 { hold(item(id, reason: .summary, received: Double(id)), in: &held) }
        check("held")
        XCTAssertEqual(held.waitingCount(.heldFocus), 8)
        XCTAssertEqual(held.waitingCount(for: "Work"), 6)
        XCTAssertEqual(held.waiting(for: "Work").map(\.id), [1, 2, 3, 4, 5, 6], "oldest first")
        XCTAssertEqual(held.focusNames(besides: "Sleep"), ["Work"])

        held.assign([1, 2, 9], toDigest: 50)
        check("in a digest")
        XCTAssertEqual(held.waitingCount(for: "Work"), 4)
        XCTAssertEqual(held.waitingCount(.heldSummary), 1)
        XCTAssertTrue(held.isOpen(50))
        XCTAssertFalse(held.isOpen(51))

        hold(item(3, reason: .focus("Sleep"), received: 3), in: &held)  // the same ID held again, for another reason
        check("held again")
        XCTAssertEqual(held.waitingCount(for: "Work"), 3)
        XCTAssertEqual(held.waitingCount(for: "Sleep"), 3)

        held.queueReplay([1, 2], showAll: true)
        XCTAssertTrue(held.isOpen(50), "1 and 2 replayed by a Show All, 9 is left")
        held.remove([4, 7, 8, 9])
        check("removed")
        XCTAssertFalse(held.isOpen(50), "what is left is being replayed")
        XCTAssertEqual(held.focusNames(besides: nil), ["Work", "Sleep"])
        held.remove([3])
        XCTAssertEqual(held.focusNames(besides: nil), ["Work"], "a Focus that holds nothing more is no longer named")
        _ = held.digestsGone([50])
        check("the digest gone")
        XCTAssertEqual(held.waiting(for: "Work").map(\.id), [1, 2, 5, 6])
        held.remove([5])
        check("removed again")
        XCTAssertEqual(held.count, 4)
    }
}
