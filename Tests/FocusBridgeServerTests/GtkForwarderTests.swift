import FocusBridgeCore
import FocusBridgeDBus
@testable import FocusBridgeServer
import FocusBridgeStore
import FocusBridgeTestSupport
import Glibc
import XCTest

/// GNOME Shell's GTK interface as a `Forwarder`'s target, as the daemon is: against a fake
/// shell (`FakeGtkShell`) the queue's byte bound, nothing sent while a commit is pending, a
/// refusal given up and a removal ending the ID; on a real bridge with no shell on its bus,
/// what waits counted in the status and the oldest given up, ended in history, signalled to
/// nobody.
final class GtkForwarderTests: XCTestCase {
    /// The shell's GTK side as the forwarder sees it: calls recorded, answered by the test.
    final class FakeGtkShell: ForwardTarget {
        static var described: String { GtkShell.described }
        static var maxQueued: Int { GtkShell.maxQueued }
        static var maxQueuedBytes: Int { GtkShell.maxQueuedBytes }

        var isConnected = true
        var logsOnly: Bool { false }
        private(set) var added: [(forward: GtkForward, completion: (Result<UInt32, DBusError>) -> Void)] = []
        private(set) var removed: [UInt32] = []
        private var answered = 0

        func notify(_ payload: GtkForward, replacing shownID: UInt32,
                    completion: @escaping (Result<UInt32, DBusError>) -> Void) {
            added.append((payload, completion))
        }

        func close(shownID: UInt32, bridgeID: UInt32) -> Bool {
            removed.append(bridgeID)
            return true
        }

        /// Answers the oldest `AddNotification` not answered yet, as the shell would.
        func answerNext(_ result: Result<Void, DBusError>) {
            let call = added[answered]
            answered += 1
            call.completion(result.map { call.forward.id })
        }
    }

    private let logs = LogRecorder()
    private let shell = FakeGtkShell()
    private let events = ForwarderTests.Events()

    private func makeForwarder() -> Forwarder<FakeGtkShell> {
        let forwarder = Forwarder(target: shell, logger: logs.logger)
        forwarder.events = events
        return forwarder
    }

    private func forward(_ id: UInt32, weight: Int = 100) -> GtkForward {
        GtkForward(id: id, appID: "org.example.Mail", notificationID: "n\(id)", dictionary: .dictionary([]), weight: weight)
    }

    /// Sixty notifications with 16 MiB icons once cost 918 MiB while no shell was there: what
    /// waits is bounded by its bytes too, the oldest given up first.
    func testWhatWaitsForTheShellIsBoundedByItsBytes() {
        let forwarder = makeForwarder()
        shell.isConnected = false
        let icon = 16 << 20
        for id: UInt32 in 1...5 { forwarder.send(forward(id, weight: icon)) }
        let fits = GtkShell.maxQueuedBytes / icon
        XCTAssertEqual(forwarder.queued, fits)
        XCTAssertEqual(events.givenUp.map(\.id), Array(1...UInt32(5 - fits)))
        XCTAssertEqual(Set(events.givenUp.map(\.reason)), [.undefined])
        XCTAssertTrue(logs.lines.contains { $0.level == .warning && $0.message.contains("wait for GNOME Shell") })
        XCTAssertEqual(shell.added.count, 0, "nothing goes while the shell is away")

        shell.isConnected = true
        forwarder.pump()  // as the shell's name coming back does
        XCTAssertEqual(shell.added.map(\.forward.id), Array(UInt32(6 - fits)...5), "the rest, in order")
    }

    func testPastTheCountTheOldestIsGivenUp() {
        let forwarder = makeForwarder()
        shell.isConnected = false
        for id in 1...UInt32(GtkShell.maxQueued + 1) { forwarder.send(forward(id)) }
        XCTAssertEqual(forwarder.queued, GtkShell.maxQueued)
        XCTAssertEqual(events.givenUp.map(\.id), [1])
    }

    func testNothingGoesToTheShellWhileACommitIsPending() {
        let forwarder = makeForwarder()
        events.mayForward = false
        forwarder.send(forward(1))
        forwarder.pump()
        XCTAssertEqual(shell.added.count, 0, "the app's answer waits for its commit, and the shell for the answer")
        XCTAssertEqual(forwarder.queued, 1)
        events.mayForward = true
        forwarder.pump()  // as each commit does once its callers are answered
        XCTAssertEqual(shell.added.map(\.forward.id), [1])
        XCTAssertEqual(forwarder.inFlight, 1)
        shell.answerNext(.success(()))
        XCTAssertEqual(forwarder.delivered, 1)
        XCTAssertEqual(events.taken, 1)
    }

    /// An app the shell cannot find: given up, which ends the ID (the bridge says it closed).
    func testARefusalIsGivenUpAndAnAbsentShellIsTriedAgain() {
        let forwarder = makeForwarder()
        forwarder.send(forward(1))
        forwarder.send(forward(2))
        shell.answerNext(.failure(DBusError(name: GtkNotificationsInterface.invalidApp, message: "no app", isRemote: true)))
        XCTAssertEqual(events.givenUp.map(\.id), [1])
        XCTAssertEqual(events.givenUp.map(\.reason), [.undefined])
        XCTAssertTrue(logs.lines.contains { $0.level == .warning && $0.message.contains("GNOME Shell did not take notification 1") })

        shell.isConnected = false
        shell.answerNext(.failure(DBusError(name: DBusError.serviceUnknown, message: "gone", isRemote: true)))
        XCTAssertEqual(forwarder.queued, 1, "kept for when the shell is back")
        shell.isConnected = true
        forwarder.pump()
        XCTAssertEqual(shell.added.map(\.forward.id), [1, 2, 2])
        XCTAssertEqual(events.givenUp.count, 1)
    }

    /// `RemoveNotification` ends the ID at once: what waits of it never goes, a call in flight
    /// is not made again, and the bridge removes what the shell may show.
    func testAWithdrawnOneIsNeverSentAgain() {
        let forwarder = makeForwarder()
        events.alive = [1]
        forwarder.send(forward(1))
        shell.answerNext(.success(()))
        XCTAssertTrue(forwarder.withdraw(1), "the shell has it: the bridge removes it there")

        forwarder.send(forward(2))
        XCTAssertTrue(forwarder.withdraw(2), "its call is out: the shell may show it")
        shell.isConnected = false
        shell.answerNext(.failure(DBusError(name: DBusError.serviceUnknown, message: "gone", isRemote: true)))
        XCTAssertEqual(forwarder.queued, 0, "not kept for the shell's return")

        forwarder.send(forward(3))
        XCTAssertFalse(forwarder.withdraw(3), "it never left the queue")
        XCTAssertEqual(forwarder.queued, 0)
        shell.isConnected = true
        forwarder.pump()
        XCTAssertEqual(shell.added.map(\.forward.id), [1, 2])
        XCTAssertTrue(events.givenUp.isEmpty)
    }

    /// A close by bridge ID: the shell says nothing when its copy goes, so the ID ends here.
    func testACloseOfOneTheShellShowsEndsIt() {
        let forwarder = makeForwarder()
        events.alive = [1]
        forwarder.send(forward(1))
        shell.answerNext(.success(()))
        forwarder.close(1)
        XCTAssertEqual(shell.removed, [1])
        XCTAssertEqual(events.givenUp.map(\.id), [1])
        XCTAssertEqual(events.givenUp.map(\.reason), [.closedByCall])
    }

    // MARK: On the bridge

    private var testBus: TestBus!
    private var store: Store!

    override func tearDown() {
        store = nil
        testBus = nil
        super.tearDown()
    }

    final class Waiter: IDWaiter {
        var ids: [UInt32] = []
        func answer(_ id: UInt32) { ids.append(id) }
    }

    /// With no shell on the bus the GTK door's notifications wait, counted in the status; past
    /// the byte bound the oldest is given up: closed in history, and no signal to its app (apps
    /// of the GTK door hear nothing back).
    func testWithNoShellWhatWaitsIsCountedAndTheOldestEndsInHistory() throws {
        testBus = try TestBus()
        store = try temporaryStore()
        let app = try MessageConnection.connect(address: testBus.address)
        var signals = 0
        try app.match("type='signal',interface='\(NotificationsInterface.name)'") { _ in signals += 1 }
        let bridge = try Bridge(bus: VariantConnection.connect(address: testBus.address),
                                notificationBus: MessageConnection.connect(address: testBus.address),
                                downstream: FakeDownstream(), store: store, settings: PolicySettings(),
                                logger: logs.logger)
        let shell = GtkShell(calls: try MessageConnection.connect(address: testBus.address), logger: logs.logger)
        bridge.serveGtk(shell)
        shell.start()
        let caller = Caller(connection: app.uniqueName, userID: getuid(), door: .gtk)
        let icon = Variant.tuple([.string("bytes"), .boxed(.byteArray([UInt8](repeating: 7, count: 8 << 20)))])
        let count = GtkShell.maxQueuedBytes / (8 << 20) + 2
        let waiter = Waiter()
        for index in 1...count {
            let arguments = DoorArguments.gtk(GtkArguments(appID: "org.example.Mail", id: "n\(index)", dictionary:
                .dictionary([("title", .string("Waiting \(index)")), ("icon", icon)])))
            bridge.execute(bridge.plan(arguments, caller: caller, process: nil), arguments, processID: nil, waiter: waiter)
        }
        waitOnMainLoop(until: { waiter.ids.count == count && !bridge.commit.isPending }, "the callers were not answered")
        let waiting = count - 3  // 8 MiB of icon and a little more each: three past the bound
        XCTAssertEqual(bridge.queuedCount, waiting, "status counts what waits for the shell")
        XCTAssertEqual(bridge.inFlightCount, 0)
        XCTAssertEqual(bridge.delivered, 0)
        let given = Array(waiter.ids.prefix(3))
        for id in given { XCTAssertFalse(bridge.ledger.shown.contains(id), "given up: ended") }
        XCTAssertTrue(bridge.ledger.shown.contains(waiter.ids[3]))
        waitOnMainLoop(until: { (try? self.store.entry(id: given[0]))??.closeReason != nil }, "the end was not noted")
        XCTAssertEqual(try store.entry(id: given[0])?.closeReason, CloseReason.undefined.rawValue)
        XCTAssertEqual(signals, 0, "an app of the GTK door is sent no NotificationClosed")
    }
}
