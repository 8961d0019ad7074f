import FocusBridgeCore
import FocusBridgeTime
import FocusBridgeDBus
@testable import FocusBridgeServer
import FocusBridgeStore
import Foundation
import XCTest

/// `HeldRegistry` on a real state database: what is held survives a restart (a new registry on
/// the same store), who owns it, digests, and the replay backlog.
final class HeldRegistryTests: XCTestCase {
    private let logs = LogRecorder()
    private let alice = Caller(connection: ":1.10", userID: 1000)
    private let aliceAgain = Caller(connection: ":1.11", userID: 1000)
    private let bob = Caller(connection: ":1.20", userID: 1001)

    private struct Fixture {
        let store: Store
        let commit: GroupCommit
        let failures: FailureLog
    }

    private func fixture() throws -> Fixture {
        let store = try temporaryStore()
        let failures = FailureLog(logger: logs.logger)
        return Fixture(store: store, commit: GroupCommit(store: store, failures: failures), failures: failures)
    }

    private func registry(_ fixture: Fixture) throws -> HeldRegistry {
        try HeldRegistry(store: fixture.store, commit: fixture.commit, failures: fixture.failures, logger: logs.logger)
    }

    private func arguments(_ summary: String) -> NotifyArguments {
        NotifyArguments(.tuple([.string("Mail"), .uint32(0), .string("mail"), .string(summary), .string("Body of \(summary)"),
                                .strings(["open", "Open"]), .dictionary([("urgency", .boxed(.byte(1)))]), .int32(-1)]))
    }

    private func item(_ id: UInt32, reason: HeldNotification.Reason = .focus("Work"), holders: [Caller]? = nil,
                      received: Double = 0) -> HeldNotification {
        HeldNotification(id: id, reason: reason, app: "Mail", summary: "held \(id)", body: "", level: .active,
                         relevance: 0.5, received: Instant(timeIntervalSince1970: 1_800_000_000 + received),
                         holders: holders ?? [alice], processID: nil)
    }

    /// Holds `item` as the bridge does: in memory at once, durable with the next commit.
    private func hold(_ item: HeldNotification, in registry: HeldRegistry, _ fixture: Fixture,
                      summary: String? = nil) {
        registry.hold(item)
        let stored = arguments(summary ?? item.summary).all
        fixture.commit.hold(Store.Hold(item: item, payloadType: stored.typeString, payload: stored.bytes))
        fixture.commit.record(HistoryEntry(id: item.id, app: item.app, summary: item.summary, body: "", level: .active,
                                           decision: item.reason.outcome ?? .delivered, received: item.received))
    }

    private func write(_ fixture: Fixture) {
        runMainLoop(until: { !fixture.commit.isPending })
    }

    // MARK: Durable

    func testWhatIsHeldAndWhatIsRemovedSurvivesARestart() throws {
        let fixture = try fixture()
        let held = try registry(fixture)
        for id: UInt32 in 1...3 { hold(item(id, received: Double(id)), in: held, fixture) }
        XCTAssertEqual(held.all.map(\.id), [1, 2, 3], "held at once, before the write")
        write(fixture)

        held.remove([2])
        XCTAssertNil(held[2])
        XCTAssertEqual(try fixture.store.heldNotifications().map(\.item.id), [1, 3], "removed durably at once")

        let restarted = try registry(fixture)
        XCTAssertEqual(restarted.all.map(\.id), [1, 3])
        XCTAssertEqual(restarted[1]?.holders, [alice])
        XCTAssertEqual(restarted[3]?.summary, "held 3")
        XCTAssertEqual(restarted.waiting(.heldFocus).map(\.id), [1, 3])
        XCTAssertEqual(restarted.focusNames(besides: nil), ["Work"])
        XCTAssertEqual(restarted.focusNames(besides: "Work"), [])
        XCTAssertTrue(logs.lines.contains { $0.message.contains("2 notifications still held from before") }, "\(logs.lines)")
    }

    func testAHoldRemovedBeforeItsCommitIsNeverWritten() throws {
        let fixture = try fixture()
        let held = try registry(fixture)
        hold(item(1), in: held, fixture)
        hold(item(2), in: held, fixture)
        held.remove([1])
        write(fixture)
        XCTAssertEqual(try fixture.store.heldNotifications().map(\.item.id), [2])
        XCTAssertEqual(try registry(fixture).all.map(\.id), [2])
    }

    // MARK: Snoozes

    func testSnoozesAreCountedApartFromTheFocusAndComeBackInTheOrderTheyEnd() throws {
        let fixture = try fixture()
        let held = try registry(fixture)
        let base = Instant(timeIntervalSince1970: 1_800_000_000)
        hold(item(1), in: held, fixture)
        hold(item(2, reason: .snooze(until: base.addingTimeInterval(600))), in: held, fixture)
        hold(item(3, reason: .snooze(until: base.addingTimeInterval(60))), in: held, fixture)
        XCTAssertEqual(held.waitingCount(.heldFocus), 1, "a snoozed one is not the Focus's")
        XCTAssertEqual(held.waitingCount(.heldSummary), 0)
        XCTAssertEqual(held.snoozedCount, 2)
        XCTAssertEqual(held.snoozed.map(\.id), [3, 2], "soonest end first")
        XCTAssertEqual(held.nextSnoozeEnd, base.addingTimeInterval(60))
        XCTAssertEqual(held.focusNames(besides: nil), ["Work"], "a Focus's end releases no snooze")
        // The one whose write is still pending is written with its new reason.
        held.setReason(3, .focus("Work"))
        write(fixture)

        let restarted = try registry(fixture)
        XCTAssertEqual(restarted.snoozed.map(\.id), [2])
        XCTAssertEqual(restarted.snoozedUntil(2), base.addingTimeInterval(600))
        XCTAssertEqual(restarted.waiting(for: "Work").map(\.id), [1, 3])
        restarted.setReason(2, .snooze(until: base.addingTimeInterval(7200)))
        XCTAssertEqual(try registry(fixture).nextSnoozeEnd, base.addingTimeInterval(7200), "a new end is kept at once")
    }

    func testAQueuedReplayGoesOutOnceAndASnoozeOnItsWayIsNotDueAgain() throws {
        let fixture = try fixture()
        let held = try registry(fixture)
        let end = Instant(timeIntervalSince1970: 1_800_000_000)
        hold(item(1, reason: .snooze(until: end)), in: held, fixture)
        hold(item(2), in: held, fixture)
        write(fixture)
        held.queueReplay([1])
        XCTAssertEqual(held.snoozed.map(\.id), [], "on its way out: the timer must not find it due again")
        XCTAssertNil(held.nextSnoozeEnd)
        XCTAssertEqual(held.snoozedCount, 1, "still held until it goes into the forward queue")
        held.queueReplay([2, 1], showAll: true)
        var out: [UInt32] = []
        while let next = held.nextReplay() { out.append(next.item.id) }
        XCTAssertEqual(out, [1, 2], "each once, in the order first asked")
    }

    // MARK: Ownership

    func testHoldersAndOwnershipFollowTheCaller() throws {
        let fixture = try fixture()
        let held = try registry(fixture)
        hold(item(1, holders: [alice]), in: held, fixture)
        write(fixture)

        XCTAssertEqual(held.holders(of: 1), [alice])
        XCTAssertNil(held.holders(of: 0), "0 is no ID")
        XCTAssertNil(held.holders(of: 2))
        XCTAssertTrue(held.owns(1, by: alice))
        XCTAssertTrue(held.owns(1, by: aliceAgain), "the same user, another connection")
        XCTAssertFalse(held.owns(1, by: bob), "another user does not own it")
        XCTAssertFalse(held.owns(1, by: Caller(connection: ":1.30")), "nor a caller of unknown user")
        XCTAssertFalse(held.owns(2, by: alice), "nothing held under that ID")

        // The holders come back from the store.
        let restarted = try registry(fixture)
        XCTAssertTrue(restarted.owns(1, by: aliceAgain))
        XCTAssertFalse(restarted.owns(1, by: bob))
    }

    // MARK: Digests

    func testADigestStandsForItsMembersUntilItGoes() throws {
        let fixture = try fixture()
        let held = try registry(fixture)
        for id: UInt32 in 1...3 { hold(item(id, received: Double(id)), in: held, fixture) }
        hold(item(4, reason: .summary, received: 4), in: held, fixture)
        write(fixture)

        held.assign([1, 2], toDigest: 50)
        XCTAssertEqual(Set(held.members(ofDigest: 50).map(\.id)), [1, 2])
        XCTAssertEqual(held.digest(of: 1), 50)
        XCTAssertNil(held.digest(of: 3))
        XCTAssertEqual(held.waiting(.heldFocus).map(\.id), [3], "what a digest stands for waits no more")
        XCTAssertEqual(held.waiting(for: "Work").map(\.id), [3])
        XCTAssertEqual(held.waiting(.heldSummary).map(\.id), [4])
        XCTAssertNil(held.holders(of: 1), "in a digest: no longer replaced or closed by its sender")
        XCTAssertFalse(held.owns(1, by: alice))
        XCTAssertEqual(held.openDigests().mapValues { Set($0.map(\.id)) }, [50: [1, 2]])
        XCTAssertEqual(Dictionary(try fixture.store.heldNotifications().map { ($0.item.id, $0.digest) },
                                  uniquingKeysWith: { a, _ in a }),
                       [1: 50, 2: 50, 3: nil, 4: nil], "durable")

        held.digestsGone([51])
        XCTAssertEqual(held.digest(of: 1), 50, "another digest going changes nothing")
        held.digestsGone([50])
        XCTAssertNil(held.digest(of: 1))
        XCTAssertEqual(held.members(ofDigest: 50).map(\.id), [])
        XCTAssertEqual(held.openDigests().count, 0)
        XCTAssertEqual(held.waiting(.heldFocus).map(\.id), [1, 2, 3], "they wait again")
        XCTAssertEqual(held.holders(of: 1), [alice])
        XCTAssertEqual(try fixture.store.heldNotifications().compactMap(\.digest), [])
    }

    func testADigestSentBeforeARestartWaitsAgainAfterIt() throws {
        let fixture = try fixture()
        let held = try registry(fixture)
        hold(item(1), in: held, fixture)
        hold(item(2), in: held, fixture)
        write(fixture)
        held.assign([1, 2], toDigest: 50)
        XCTAssertEqual(try fixture.store.heldNotifications().compactMap(\.digest), [50, 50])

        let restarted = try registry(fixture)
        XCTAssertEqual(restarted.members(ofDigest: 50).map(\.id), [], "the digest is out of reach now")
        XCTAssertNil(restarted.digest(of: 1))
        XCTAssertEqual(restarted.waiting(.heldFocus).map(\.id), [1, 2])
        XCTAssertEqual(restarted.holders(of: 2), [alice])
        XCTAssertEqual(try fixture.store.heldNotifications().compactMap(\.digest), [], "noted in the store too")
    }

    // MARK: Replay

    func testTheReplayBacklogGoesInOrderWithTheStoredArguments() throws {
        let fixture = try fixture()
        let held = try registry(fixture)
        for id: UInt32 in 1...4 { hold(item(id, received: Double(id)), in: held, fixture) }
        write(fixture)
        XCTAssertFalse(held.replayWaits)

        held.queueReplay([3, 1], cause: "the end of Work")
        held.queueReplay([4, 2])
        held.remove([4])  // removed before its turn: skipped
        XCTAssertTrue(held.replayWaits)

        var replayed: [(id: UInt32, summary: String?, cause: String?)] = []
        while let (item, arguments, cause) = held.nextReplay() {
            replayed.append((item.id, arguments?.summary, cause))
            XCTAssertEqual(arguments?.all.bytes, self.arguments(item.summary).all.bytes, "the stored arguments, byte for byte")
            XCTAssertEqual(arguments?.request.actions, ["open", "Open"])
            XCTAssertNotNil(held[item.id], "it stays held until removed")
        }
        XCTAssertEqual(replayed.map(\.id), [3, 1, 2], "in the order queued")
        XCTAssertEqual(replayed.map(\.summary), ["held 3", "held 1", "held 2"])
        XCTAssertEqual(replayed.map(\.cause), ["the end of Work", "the end of Work", nil])
        XCTAssertFalse(held.replayWaits)
        held.replayDrained()
        XCTAssertNil(held.nextReplay())
        held.remove([1, 2, 3])
        XCTAssertEqual(held.all.count, 0)
        XCTAssertEqual(try fixture.store.heldNotifications().count, 0)
    }

    func testAShowAllKeepsItsReplaysOutOfTheDigest() throws {
        let fixture = try fixture()
        let held = try registry(fixture)
        for id: UInt32 in 1...2 { hold(item(id, received: Double(id)), in: held, fixture) }
        write(fixture)
        held.assign([1, 2], toDigest: 50)

        held.queueReplay([1, 2], showAll: true, cause: "Show All")
        XCTAssertEqual(held.members(ofDigest: 50).map(\.id), [], "the digest closing does not end what is replayed")
        XCTAssertEqual(held.openDigests().count, 0)
        let first = try XCTUnwrap(held.nextReplay())
        XCTAssertEqual(first.item.id, 1)
        XCTAssertEqual(first.cause, "Show All")
        XCTAssertEqual(held.members(ofDigest: 50).map(\.id), [1], "taken out of the backlog: the digest's again until removed")
    }

    func testAnUnreadablePayloadIsReplayedWithoutArguments() throws {
        let fixture = try fixture()
        let held = try registry(fixture)
        let stored = item(1)
        held.hold(stored)
        fixture.commit.hold(Store.Hold(item: stored, payloadType: "(s)", payload: Variant.tuple([.string("x")]).bytes))
        fixture.commit.record(historyEntry(1, decision: .heldFocus))
        write(fixture)
        held.queueReplay([1])
        let next = try XCTUnwrap(held.nextReplay())
        XCTAssertEqual(next.item.id, 1)
        XCTAssertNil(next.arguments, "a payload of another type cannot be read")
    }
    // MARK: Counts without scanning

    /// The counts status and the tray read at every change are kept as things are held, sent in
    /// a digest, replayed and removed; they agree with the lists at every step.
    func testTheCountsFollowEveryChangeAndAgreeWithTheLists() throws {
        let fixture = try fixture()
        let held = try registry(fixture)
        func check(_ step: String) {
            XCTAssertEqual(held.waitingCount(.heldFocus), held.waiting(.heldFocus).count, step)
            XCTAssertEqual(held.waitingCount(.heldSummary), held.waiting(.heldSummary).count, step)
            for name in ["Work", "Sleep"] {
                XCTAssertEqual(held.waitingCount(for: name), held.waiting(for: name).count, "\(step): \(name)")
            }
            XCTAssertEqual(held.count, held.all.count, step)
        }
        for id: UInt32 in 1...6 { hold(item(id, received: Double(id)), in: held, fixture) }
        for id: UInt32 in 7...8 { hold(item(id, reason: .focus("Sleep"), received: Double(id)), in: held, fixture) }
        for id: UInt32 in 9...10 { hold(item(id, reason: .summary, received: Double(id)), in: held, fixture) }
        write(fixture)
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

        held.hold(item(3, reason: .focus("Sleep"), received: 3))  // the same ID held again, for another reason
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
        held.digestsGone([50])
        check("the digest gone")
        XCTAssertEqual(held.waiting(for: "Work").map(\.id), [1, 2, 5, 6])
        held.remove([5])
        check("removed again")
        XCTAssertEqual(held.count, 4)
    }
}
