import FocusBridgeCore
import FocusBridgeTime
import FocusBridgeDBus
@testable import FocusBridgeServer
import FocusBridgeStore
import FocusBridgeTestSupport
import Foundation
import Glibc
import XCTest

/// The bridge's executor (`Bridge.plan` + `Bridge.execute`) on a real state database, a private
/// bus and a fake daemon (`FakeDownstream`): what a sender and the person notice — the ID after
/// the commit, then the daemon's copy; held, dropped and replaced notifications; the daemon's
/// signals and its going away ending what it showed.
final class ExecutorTests: XCTestCase {
    /// Whoever waits for an ID, recording what was true when it was answered.
    final class Waiter: IDWaiter {
        var ids: [UInt32] = []
        var onAnswer: (UInt32) -> Void = { _ in }

        func answer(_ id: UInt32) {
            ids.append(id)
            onAnswer(id)
        }
    }

    private let logs = LogRecorder()
    private let daemon = FakeDownstream()
    private var testBus: TestBus!
    private var store: Store!
    /// A sender on the bus: the `NotificationClosed` signals it receives, in order.
    private var app: MessageConnection!
    private var closedSignals: [(id: UInt32, reason: CloseReason)] = []

    /// XCTest keeps every test case alive to the end of the run: the bus daemon ends with its test.
    override func tearDown() {
        app = nil
        store = nil
        testBus = nil
        super.tearDown()
    }

    private var sender: Caller { Caller(connection: app.uniqueName, userID: getuid()) }
    private var otherUser: Caller { Caller(connection: ":1.9999", userID: getuid() &+ 1) }

    private func makeBridge(storeFolder: String? = nil, _ change: (inout PolicySettings) -> Void = { _ in }) throws -> Bridge {
        testBus = try TestBus()
        store = try storeFolder.map { try Store(directory: $0) } ?? temporaryStore()
        app = try MessageConnection.connect(address: testBus.address)
        try app.match("type='signal',interface='\(NotificationsInterface.name)',member='NotificationClosed'") {
            [unowned self] message in
            if case .closed(let id, let reason)? = DaemonSignal(message) { closedSignals.append((id, reason)) }
        }
        var settings = PolicySettings()
        change(&settings)
        let bridge = try Bridge(bus: VariantConnection.connect(address: testBus.address),
                                notificationBus: MessageConnection.connect(address: testBus.address),
                                downstream: daemon, store: store, settings: settings, logger: logs.logger)
        return bridge
    }

    private func notify(_ summary: String = "Hi", app: String = "Mail", replacing: UInt32 = 0) -> NotifyArguments {
        NotifyArguments(.tuple([.string(app), .uint32(replacing), .string(""), .string(summary), .string("Body"),
                                .strings([]), .dictionary([]), .int32(-1)]))
    }

    /// Plans and carries out `arguments` from `caller`; returns the waiter.
    @discardableResult
    private func send(_ bridge: Bridge, _ arguments: NotifyArguments, from caller: Caller? = nil,
                      waiter: Waiter = Waiter()) -> Waiter {
        bridge.execute(bridge.plan(.fdo(arguments), caller: caller ?? sender, process: nil), .fdo(arguments), processID: nil,
                       waiter: waiter)
        return waiter
    }

    private func waitForCommit(_ bridge: Bridge, file: StaticString = #filePath, line: UInt = #line) {
        waitOnMainLoop(until: { !bridge.commit.isPending }, "the commit was not written", file: file, line: line)
    }

    private func row(_ id: UInt32) throws -> HistoryEntry? { try store.entry(id: id) }

    // MARK: Forwarded

    func testAForwardedNotificationIsAnsweredAfterItsCommitAndForwardedAfterTheAnswer() throws {
        let bridge = try makeBridge()
        let waiter = Waiter()
        var rowWhenAnswered: HistoryEntry?
        var daemonCallsWhenAnswered = -1
        waiter.onAnswer = { [unowned self] id in
            rowWhenAnswered = try? row(id)
            daemonCallsWhenAnswered = daemon.calls.count
        }
        send(bridge, notify("Hello"), waiter: waiter)
        XCTAssertEqual(waiter.ids, [], "nobody hears the ID before the commit")
        XCTAssertEqual(daemon.calls.count, 0, "nothing reaches the daemon while the caller waits for its ID")

        waitForCommit(bridge)
        let id = try XCTUnwrap(waiter.ids.first)
        XCTAssertEqual(waiter.ids.count, 1)
        XCTAssertEqual(rowWhenAnswered?.summary, "Hello", "the history row was written before the answer")
        XCTAssertEqual(rowWhenAnswered?.decision, .delivered)
        XCTAssertEqual(daemonCallsWhenAnswered, 0, "reply first, forward after")
        XCTAssertEqual(daemon.calls.map(\.notification.id), [id], "forwarded once the caller has its ID")
        XCTAssertEqual(daemon.calls.first?.notification.summary, "Hello")
        XCTAssertEqual(daemon.calls.first?.replacing, 0)
        XCTAssertEqual(bridge.ledger.shown[id]?.holders, [sender], "the caller holds the ID")
        XCTAssertNil(bridge.ledger.held[id])

        daemon.answerNext(.success(501))
        XCTAssertEqual(bridge.forwarder.daemonIDs.daemonID(of: id), 501)
        XCTAssertEqual(bridge.delivered, 1)
    }

    // MARK: Held

    func testAFocusHoldsItDurablyAndNothingReachesTheDaemon() throws {
        let bridge = try makeBridge { $0.focuses = [FocusProfile(name: "Work")] }
        bridge.activeFocus = ActiveFocus(name: "Work", since: Instant(timeIntervalSince1970: 1_800_000_000),
                                         until: nil, source: .manual)
        let waiter = Waiter()
        var heldWhenAnswered = -1
        waiter.onAnswer = { [unowned self] _ in heldWhenAnswered = (try? store.heldNotifications().count) ?? -1 }
        let arguments = notify("Held")
        send(bridge, arguments, waiter: waiter)
        waitForCommit(bridge)

        let id = try XCTUnwrap(waiter.ids.first, "the caller is answered")
        XCTAssertEqual(heldWhenAnswered, 1, "durable before the caller hears the ID")
        XCTAssertEqual(daemon.calls.count, 0, "nothing reaches the daemon")
        XCTAssertNil(bridge.ledger.shown[id], "not shown")
        XCTAssertEqual(bridge.ledger.held[id]?.reason, .focus("Work"))
        XCTAssertEqual(bridge.ledger.held.holders(of: id), [sender])
        XCTAssertEqual(bridge.waiting(.heldFocus).map(\.id), [id])

        let stored = try store.heldNotifications()
        XCTAssertEqual(stored.map(\.item.id), [id])
        XCTAssertEqual(stored.first?.item.summary, "Held")
        let payload = try XCTUnwrap(store.heldPayload(id))
        let readBack = try XCTUnwrap(NotifyArguments(storedType: payload.type, bytes: payload.bytes),
                                     "the stored payload reads back")
        XCTAssertEqual(readBack.summary, "Held")
        XCTAssertEqual(readBack.all.bytes, arguments.all.bytes)
        XCTAssertEqual(try row(id)?.decision, .heldFocus)
        XCTAssertTrue(closedSignals.isEmpty, "a held notification has not ended")
    }

    // MARK: Dropped

    /// The 64th waiting answer writes the batch at once: a held notification that is the 64th is
    /// in that write, not in the next one (a crash between the two lost it, acknowledged).
    func testAHeldNotificationThatFillsTheBatchIsInTheWriteItsAnswerWaitsFor() throws {
        let bridge = try makeBridge { $0.focuses = [FocusProfile(name: "Work")] }
        for n in 1..<GroupCommit.maxBatch { send(bridge, notify("Shown \(n)", app: "App\(n)")) }
        XCTAssertTrue(bridge.commit.isPending, "63 answers wait for one write")
        bridge.activeFocus = ActiveFocus(name: "Work", since: Instant(timeIntervalSince1970: 1_800_000_000),
                                         until: nil, source: .manual)
        let waiter = Waiter()
        var storedWhenAnswered: Bool?
        waiter.onAnswer = { [unowned self] id in storedWhenAnswered = (try? store.heldPayload(id)) != nil }
        send(bridge, notify("Held"), waiter: waiter)
        XCTAssertEqual(waiter.ids.count, 1, "the 64th answer writes the batch at once")
        XCTAssertEqual(storedWhenAnswered, true, "the held notification is in the write its answer waited for")
    }

    func testDeliveryOffAnswersAndEndsTheIDAtOnce() throws {
        let bridge = try makeBridge { settings in
            var rule = AppRule()
            rule.delivery = .off
            settings.apps["Mail"] = rule
        }
        let waiter = send(bridge, notify("Dropped"))
        waitForCommit(bridge)
        let id = try XCTUnwrap(waiter.ids.first, "the caller is answered")
        XCTAssertEqual(try row(id)?.decision, .dropped)

        waitOnMainLoop(until: { [unowned self] in (try? row(id))?.closeReason != nil && !closedSignals.isEmpty })
        XCTAssertEqual(try row(id)?.closeReason, CloseReason.dismissed.rawValue, "history notes it closed, dismissed")
        XCTAssertEqual(closedSignals.map(\.id), [id], "the sender hears it closed")
        XCTAssertEqual(closedSignals.first?.reason, .dismissed)
        XCTAssertEqual(daemon.calls.count, 0, "nothing reaches the daemon")
        XCTAssertNil(bridge.ledger.shown[id])
        XCTAssertNil(bridge.ledger.held[id])
    }

    // MARK: Replaced

    func testAReplacementFromTheSameSenderKeepsItsIDAndReplacesTheDaemonsCopy() throws {
        let bridge = try makeBridge()
        let first = send(bridge, notify("One"))
        waitForCommit(bridge)
        let id = try XCTUnwrap(first.ids.first)
        daemon.answerNext(.success(501))

        let second = send(bridge, notify("Two", replacing: id))
        waitForCommit(bridge)
        XCTAssertEqual(second.ids, [id], "the same ID")
        XCTAssertEqual(daemon.calls.count, 2)
        XCTAssertEqual(daemon.calls.last?.notification.id, id)
        XCTAssertEqual(daemon.calls.last?.notification.summary, "Two")
        XCTAssertEqual(daemon.calls.last?.replacing, 501, "it replaces the daemon's copy")
        XCTAssertEqual(bridge.ledger.shown[id]?.holders, [sender])
        XCTAssertEqual(try row(id)?.summary, "Two")
    }

    func testAReplacementFromAnotherUserGetsANewID() throws {
        let bridge = try makeBridge()
        let first = send(bridge, notify("Mine"))
        waitForCommit(bridge)
        let id = try XCTUnwrap(first.ids.first)
        daemon.answerNext(.success(501))

        let stranger = send(bridge, notify("Theirs", replacing: id), from: otherUser)
        waitForCommit(bridge)
        let theirs = try XCTUnwrap(stranger.ids.first)
        XCTAssertNotEqual(theirs, id, "another user's replacement is a notification of its own")
        XCTAssertEqual(daemon.calls.last?.notification.id, theirs)
        XCTAssertEqual(daemon.calls.last?.replacing, 0, "the daemon's copy of the first one stays")
        XCTAssertEqual(bridge.ledger.shown[id]?.holders, [sender])
        XCTAssertEqual(bridge.ledger.shown[theirs]?.holders, [otherUser])
        XCTAssertEqual(try row(id)?.summary, "Mine")
    }

    // MARK: The daemon's side

    func testTheDaemonsNotificationClosedEndsTheIDForItsHolders() throws {
        let bridge = try makeBridge()
        let waiter = send(bridge, notify())
        waitForCommit(bridge)
        let id = try XCTUnwrap(waiter.ids.first)
        daemon.answerNext(.success(501))

        bridge.downstreamSignal(.closed(daemonID: 777, reason: .dismissed))
        XCTAssertNotNil(bridge.ledger.shown[id], "a signal about another daemon ID changes nothing")

        bridge.downstreamSignal(.closed(daemonID: 501, reason: .dismissed))
        XCTAssertNil(bridge.ledger.shown[id], "nobody holds it any more")
        XCTAssertNil(bridge.forwarder.daemonIDs.daemonID(of: id), "the daemon's ID is forgotten")
        XCTAssertNil(bridge.forwarder.id(forDaemonID: 501))
        waitOnMainLoop(until: { [unowned self] in !closedSignals.isEmpty && (try? row(id))?.closeReason != nil })
        XCTAssertEqual(closedSignals.map(\.id), [id])
        XCTAssertEqual(closedSignals.first?.reason, .dismissed)
        XCTAssertEqual(try row(id)?.closeReason, CloseReason.dismissed.rawValue)

        bridge.downstreamSignal(.closed(daemonID: 501, reason: .dismissed))
        waitOnMainLoop(until: { !bridge.commit.isPending })
        XCTAssertEqual(closedSignals.count, 1, "an ID ends once")
    }

    func testTheDaemonGoingAwayEndsWhatItShowed() throws {
        let bridge = try makeBridge()
        let one = send(bridge, notify("One"))
        let two = send(bridge, notify("Two"))
        waitForCommit(bridge)
        let ids = one.ids + two.ids
        XCTAssertEqual(ids.count, 2)
        daemon.answerNext(.success(501))
        daemon.answerNext(.success(502))

        daemon.isConnected = false
        bridge.downstreamGone()
        for id in ids {
            XCTAssertNil(bridge.ledger.shown[id])
            XCTAssertNil(bridge.forwarder.daemonIDs.daemonID(of: id))
        }
        waitOnMainLoop(until: { [unowned self] in
            closedSignals.count == 2 && ids.allSatisfy { (try? row($0))?.closeReason != nil }
        })
        XCTAssertEqual(Set(closedSignals.map(\.id)), Set(ids))
        XCTAssertEqual(closedSignals.map(\.reason), [.undefined, .undefined])
        for id in ids { XCTAssertEqual(try row(id)?.closeReason, CloseReason.undefined.rawValue) }
        XCTAssertTrue(logs.lines.contains { $0.level == .warning && $0.message.contains("2 notifications it showed") },
                      "\(logs.lines)")
    }

    /// What the person did is kept for the outcome: an action of the app (the default
    /// included) or an inline reply is `acted`, even when the daemon then closes it as
    /// dismissed; the bridge's quick action is not the app's: `dismissed`.
    func testAnActionOfTheAppIsKeptAsActedAndAQuickActionIsNot() throws {
        let bridge = try makeBridge()
        let waiters = ["Click", "Reply", "Quick"].map { send(bridge, notify($0)) }
        waitForCommit(bridge)
        let ids = waiters.compactMap(\.ids.first)
        XCTAssertEqual(ids.count, 3)
        for daemonID: UInt32 in [501, 502, 503] { daemon.answerNext(.success(daemonID)) }

        bridge.downstreamSignal(.actionInvoked(daemonID: 501, key: "default"))
        bridge.downstreamSignal(.closed(daemonID: 501, reason: .dismissed))
        bridge.downstreamSignal(.passOn(member: "ActivationToken", daemonID: 502, text: "token"))
        waitOnMainLoop(until: { !bridge.commit.isPending })
        XCTAssertNil(try row(ids[1])?.acted, "an activation token alone is no action")
        bridge.downstreamSignal(.passOn(member: "NotificationReplied", daemonID: 502, text: "on my way"))
        bridge.downstreamSignal(.actionInvoked(daemonID: 503, key: QuickAction.muteHour.key))
        waitOnMainLoop(until: { [unowned self] in (try? row(ids[2]))?.closeReason != nil && !bridge.commit.isPending })
        XCTAssertEqual(try ids.map { try row($0)?.outcome }, [.acted, .acted, .dismissed])
    }

    // MARK: Held, through the ledger

    private func workFocus(_ bridge: Bridge) {
        bridge.activeFocus = ActiveFocus(name: "Work", since: Instant(timeIntervalSince1970: 1_800_000_000),
                                         until: nil, source: .manual)
    }

    /// A state database that refuses every held notification, as a full disk does: a trigger,
    /// added while no store has the file open.
    private func refusingHeldStoreFolder() throws -> String {
        let folder = temporaryStoreFolder()
        let path = try Store(directory: folder).path
        let raw = try SQLiteDatabase(path: path)
        try raw.execute("CREATE TRIGGER refuse BEFORE INSERT ON held BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
        return folder
    }

    /// Acknowledged, held, never written (the store refuses): the digest's Show All still shows
    /// each as itself, with its arguments from the ledger, and no app hears it closed.
    func testWhatTheStoreRefusedToHoldIsShownByShowAllAsItself() throws {
        let bridge = try makeBridge(storeFolder: try refusingHeldStoreFolder()) { $0.focuses = [FocusProfile(name: "Work")] }
        workFocus(bridge)
        let waiters = (0..<3).map { send(bridge, notify("Held \($0)")) }
        waitForCommit(bridge)
        let ids = waiters.compactMap(\.ids.first)
        XCTAssertEqual(ids.count, 3, "acknowledged")
        XCTAssertEqual(try store.heldNotifications().count, 0, "the store took none of them")
        XCTAssertEqual(bridge.ledger.held.unwrittenCount, 3)

        bridge.activeFocus = nil
        bridge.focusEnded("Work")
        waitForCommit(bridge)
        let digest = try XCTUnwrap(daemon.calls.last?.notification.id)
        XCTAssertEqual(daemon.calls.last?.notification.summary, "While Work was on")
        daemon.answerNext(.success(700))
        XCTAssertEqual(try bridge.showAll(digest: digest).ids.count, 3)
        waitOnMainLoop(until: { [unowned self] in daemon.calls.count == 4 }, "the three were not shown")
        let shown = daemon.calls.suffix(3).map(\.notification)
        XCTAssertEqual(Set(shown.map(\.id)), Set(ids), "each as itself, under its own ID")
        XCTAssertEqual(Set(shown.map(\.summary)), ["Held 0", "Held 1", "Held 2"])
        runMainLoop(until: { !bridge.commit.isPending })
        XCTAssertTrue(closedSignals.filter { ids.contains($0.id) }.isEmpty, "no app heard its notification closed")
        XCTAssertFalse(logs.lines.contains { $0.message.contains("cannot be read") }, "\(logs.lines)")
        XCTAssertEqual(bridge.ledger.held.count, 0)
        XCTAssertEqual(ids.map { bridge.ledger.shown[$0]?.holders }, [[sender], [sender], [sender]])
    }

    /// What is held survives a restart (the ledger restored from the store); what was dismissed
    /// does not, nor one dismissed before its write; a digest sent before the restart waits again.
    func testTheHeldStateSurvivesARestartAndADigestWaitsAgain() throws {
        let folder = temporaryStoreFolder()
        var bridge: Bridge? = try makeBridge(storeFolder: folder) { $0.focuses = [FocusProfile(name: "Work")] }
        workFocus(bridge!)
        let waiters = (0..<4).map { send(bridge!, notify("Held \($0)")) }
        waitForCommit(bridge!)
        let ids = waiters.compactMap(\.ids.first)
        _ = try bridge!.dismiss(ids[1])
        send(bridge!, notify("Held late"))
        waitForCommit(bridge!)
        bridge!.activeFocus = nil
        bridge!.focusEnded("Work")
        XCTAssertEqual(try store.heldNotifications().compactMap(\.digest).count, 4, "in the digest, durably")
        waitForCommit(bridge!)
        bridge = nil
        store = nil

        let restarted = try makeBridge(storeFolder: folder) { $0.focuses = [FocusProfile(name: "Work")] }
        let restored = restarted.ledger.held.all.map(\.id)
        XCTAssertEqual(restored.count, 4)
        XCTAssertFalse(restored.contains(ids[1]), "dismissed before the restart")
        XCTAssertEqual(restarted.waiting(.heldFocus).count, 4, "the digest is out of reach: they wait again")
        XCTAssertEqual(try store.heldNotifications().compactMap(\.digest), [], "noted in the store too")
        XCTAssertEqual(restarted.ledger.held.holders(of: ids[0]), [sender])
        XCTAssertTrue(logs.lines.contains { $0.message.contains("4 notifications still held from before") }, "\(logs.lines)")
    }

    /// A held one whose stored arguments cannot be read ends when it would be shown: its app
    /// hears it closed (reason 4), once.
    func testAHeldOneThatCannotBeReadEndsOnceWhenShown() throws {
        let folder = temporaryStoreFolder()
        do {
            let store = try Store(directory: folder)
            let item = HeldNotification(id: 42, reason: .focus("Work"), app: "Mail", summary: "lost", body: "",
                                        level: .active, relevance: 0, received: Instant(timeIntervalSince1970: 1_800_000_000),
                                        holders: [Caller(connection: ":1.9999", userID: getuid())], processID: nil)
            try store.commit(history: [historyEntry(42, decision: .heldFocus)],
                             holds: [Store.Hold(item: item, payloadType: "(s)", payload: Variant.tuple([.string("x")]).bytes)])
        }
        let bridge = try makeBridge(storeFolder: folder)
        XCTAssertNotNil(bridge.ledger.held[42])
        _ = try bridge.show(42)
        XCTAssertNil(bridge.ledger.held[42])
        XCTAssertEqual(daemon.calls.count, 0)
        XCTAssertTrue(logs.lines.contains { $0.message.contains("the stored notification 42 cannot be read") }, "\(logs.lines)")
        waitOnMainLoop(until: { [unowned self] in (try? row(42))?.closeReason != nil }, "its end was not noted")
        XCTAssertEqual(try row(42)?.closeReason, CloseReason.undefined.rawValue)
    }
}
