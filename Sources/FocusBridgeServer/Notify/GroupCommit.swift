import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import FocusBridgeStore
import FocusBridgeSystem
import FocusBridgeTime

/// Whoever waits for a notification's ID: a door's call (the fdo door's `Notify`), answered
/// once the commit has it. A class: the batch keeps a reference, nothing is allocated per call.
protocol IDWaiter: AnyObject {
    func answer(_ id: UInt32)
}

/// Group commit: what one main-loop pass records — history rows, held notifications, closings —
/// is written in one transaction (at the end of the bus dispatch that read the calls, or when the
/// loop is idle for work from elsewhere: `DispatchEnd`), and the callers hear their IDs only after it, so nothing
/// acknowledged can be lost to a crash (docs/RELIABILITY.md, "Crashes").
///
/// A write the disk refuses (full, read-only) is not lost either: what it held stays in memory
/// (`backlog`), held notifications stay held, and what comes next joins it; the whole backlog
/// is tried again every `retryMilliseconds` (one attempt then, whatever the rate of calls: a
/// failing write of thousands of rows costs the loop, and must not cost every `Notify`). The
/// backlog keeps at most `backlogLimit` history rows: older ones beyond it are dropped and
/// counted (`lost`).
final class GroupCommit {
    /// An ID whose life ended as it was handed out: its holders are told once they have the ID.
    struct End {
        let id: UInt32
        let reason: CloseReason
        let holders: [Caller]
    }

    private struct Batch {
        var history: [HistoryEntry] = []
        var holds: [Store.Hold] = []
        /// The replies to send once the batch is written.
        var answers: [Answer] = []
        var ends: [End] = []
        /// Ends to note in history: many in one transaction (a Dismiss may end thousands).
        var closings: [(id: UInt32, reason: UInt32, at: Instant)] = []
        /// Steps of fates to note in history (`Fate`), after the rows of this batch are written.
        var fates: [(id: UInt32, step: FateStep)] = []
        /// Actions of their apps invoked on notifications, to note in history before their closings.
        var actions: [(id: UInt32, at: Instant)] = []

        /// Empties the batch for the next one, keeping its arrays' storage (not grown afresh for
        /// every batch) unless a burst made one large.
        var isEmpty: Bool { history.isEmpty && holds.isEmpty && closings.isEmpty && fates.isEmpty && actions.isEmpty }

        mutating func empty() {
            Self.empty(&history)
            Self.empty(&holds)
            Self.empty(&answers)
            Self.empty(&ends)
            Self.empty(&closings)
            Self.empty(&fates)
            Self.empty(&actions)
        }

        private static func empty<Item>(_ items: inout [Item]) {
            if items.capacity > 2 * GroupCommit.maxBatch { items = [] } else { items.removeAll(keepingCapacity: true) }
        }
    }

    /// A reply waiting for the commit: an ID for whoever waits for it (no closure made per
    /// call), or what a unit test runs.
    private enum Answer {
        case id(any IDWaiter, UInt32)
        case run(() -> Void)

        func send() {
            switch self {
            case .id(let waiter, let id): waiter.answer(id)
            case .run(let reply): reply()
            }
        }
    }

    /// A batch is written at the latest when this many answers wait (a steady flood would
    /// otherwise keep the main loop from ever being idle).
    static let maxBatch = 64
    private static let recording = "recording notifications in the state database"
    /// The most history rows a refused write leaves waiting in memory (about 10 MB of typical rows).
    static let backlogLimit = 10_000
    /// How often a backlog is tried again.
    static let retryMilliseconds: UInt32 = Environment.variable("FOCUS_BRIDGE_STATE_RETRY_MS")
        .flatMap { UInt32($0) }.map { max($0, 10) } ?? 5_000

    private let store: Store
    private let failures: FailureLog
    private var pending = Batch()
    /// The storage of the batch written last, emptied: the next batch after this one fills it.
    private var spare = Batch()
    /// A write is scheduled: answers (and the forwarding behind them) wait for it.
    private(set) var isPending = false
    /// What writes the disk refused left to write: acknowledged rows, held notifications, notes.
    private var backlog = Batch()
    private var retryTimer = SourceID.none
    /// Acknowledged notifications whose history row was dropped from a full backlog: never written.
    private(set) var lost = 0
    /// The last write failed: a backlog waits for the retry.
    private var failing = false
    /// Acknowledged notifications waiting in memory to be written to history.
    var unwritten: Int { backlog.history.count }
    /// After a write failed or worked again: what `focusctl status` shows changed.
    var stateChanged: () -> Void = {}
    /// After each write, once its callers are answered: the ends to tell, and how many calls
    /// were answered.
    var committed: (_ ends: [End], _ answered: Int) -> Void = { _, _ in }
    /// After a write that stored held notifications: their IDs (the store has their arguments now).
    var holdsWritten: ([UInt32]) -> Void = { _ in }

    /// The write, as the callback scheduled for it: made once (not a closure per batch).
    private lazy var writeLater: () -> Void = { [weak self] in self?.write() }

    /// Told, as info, what went well after failures (rows written late).
    private let logger: ((String) -> Void)?

    private let retryInterval: UInt32

    init(store: Store, failures: FailureLog, info: ((String) -> Void)? = nil,
         retryMilliseconds: UInt32 = GroupCommit.retryMilliseconds) {
        self.store = store
        self.retryInterval = retryMilliseconds
        self.failures = failures
        self.logger = info
    }

    /// Answers `waiter` with `id` once `history` (and the rest of this pass) is committed.
    /// `history` is consumed: moved into the batch, not copied (its texts retained and released).
    func answer(_ waiter: any IDWaiter, id: UInt32, history: consuming HistoryEntry) {
        pending.history.append(history)
        pending.answers.append(.id(waiter, id))
        schedule()
    }

    /// Runs `reply` once `history` (and the rest of this pass) is committed (the unit tests answer
    /// no real D-Bus call).
    func answer(history: HistoryEntry, reply: @escaping () -> Void) {
        pending.history.append(history)
        pending.answers.append(.run(reply))
        schedule()
    }

    /// A history row nobody waits for (a digest).
    func record(_ history: HistoryEntry) {
        pending.history.append(history)
        schedule()
    }

    /// Stores a held notification with this batch (or, while the disk refuses, once it takes it:
    /// it stays held in memory meanwhile).
    func hold(_ hold: Store.Hold) {
        pending.holds.append(hold)
    }

    /// A held notification not written yet is written with what holds it now.
    func rehold(_ id: UInt32, reason: HeldNotification.Reason) {
        for index in pending.holds.indices where pending.holds[index].item.id == id { pending.holds[index].item.reason = reason }
        for index in backlog.holds.indices where backlog.holds[index].item.id == id { backlog.holds[index].item.reason = reason }
    }

    /// Held notifications released before they were written must not be written at all.
    func withdrawHolds(_ ids: Set<UInt32>) {
        pending.holds.removeAll { ids.contains($0.item.id) }
        if !backlog.holds.isEmpty { backlog.holds.removeAll { ids.contains($0.item.id) } }
    }

    /// Tells `holders` that `id` closed, after the answers of this batch.
    func endAfterAnswers(_ id: UInt32, reason: CloseReason, holders: [Caller]) {
        pending.ends.append(End(id: id, reason: reason, holders: holders))
    }

    /// Notes in history that `id` closed.
    func noteClosed(_ id: UInt32, reason: CloseReason, at date: Instant) {
        pending.closings.append((id, reason.rawValue, date))
        schedule()
    }

    /// Notes in history that the person acted on `id` (an action of its app).
    func noteActed(_ id: UInt32, at date: Instant) {
        pending.actions.append((id, date))
        schedule()
    }

    /// Notes in history a step of what became of `id` (a digest, a replay, the daemon's pause).
    func noteFate(_ id: UInt32, _ step: FateStep) {
        pending.fates.append((id, step))
        schedule()
    }

    private func schedule() {
        if pending.answers.count >= Self.maxBatch { return write() }
        guard !isPending else { return }
        isPending = true
        DispatchEnd.schedule(writeLater)
    }

    private func write(retrying: Bool = false) {
        isPending = false
        var batch = pending
        pending = spare
        spare = Batch()
        defer {
            batch.empty()
            spare = batch
        }
        if failing && !retrying {
            // The disk refused the last write: this batch waits with the backlog for the retry.
            keep(batch, error: nil)
            scheduleRetry()
            for answer in batch.answers { answer.send() }
            committed(batch.ends, batch.answers.count)
            return
        }
        let late = backlog.history.count
        if !backlog.isEmpty {
            // What the disk refused before goes first, in the order it came.
            batch.history.insert(contentsOf: backlog.history, at: 0)
            batch.holds.insert(contentsOf: backlog.holds, at: 0)
            batch.closings.insert(contentsOf: backlog.closings, at: 0)
            batch.fates.insert(contentsOf: backlog.fates, at: 0)
            batch.actions.insert(contentsOf: backlog.actions, at: 0)
            backlog = Batch()
        }
        let wasFailing = failing
        do {
            try store.commit(history: batch.history, holds: batch.holds)
            failures.succeeded(Self.recording)
            if !batch.holds.isEmpty { holdsWritten(batch.holds.map(\.item.id)) }
            failing = false
            if late > 0 { logger?("\(Count.of(late, "notification")) kept in memory while the state database could not be written are in history now") }
        } catch {
            // The closings, fates and actions are about rows not written either: they wait with them.
            keep(batch, error: error)
            batch.closings = []
            batch.fates = []
            batch.actions = []
        }
        do { try store.markActed(batch.actions); failures.succeeded("recording actions") } catch {
            failures.failed("recording actions", "cannot record the actions taken on notifications in the state database: \(oneLine(error)); kept in memory until it can")
            backlog.actions += batch.actions
        }
        do { try store.markClosed(batch.closings); failures.succeeded("recording closings") } catch {
            failures.failed("recording closings", "cannot record closings in the state database: \(oneLine(error)); kept in memory until it can")
            backlog.closings += batch.closings
        }
        do { try store.noteFates(batch.fates); failures.succeeded("recording fates") } catch {
            failures.failed("recording fates", "cannot record what became of notifications in the state database: \(oneLine(error)); kept in memory until it can")
            backlog.fates += batch.fates
        }
        Self.bound(&backlog.closings)
        Self.bound(&backlog.fates)
        Self.bound(&backlog.actions)
        if !backlog.isEmpty { scheduleRetry() }
        for answer in batch.answers { answer.send() }
        committed(batch.ends, batch.answers.count)
        // Said when writes start failing and when they work again (not on every write meanwhile).
        if wasFailing != failing { stateChanged() }
    }

    /// A refused write (`error`), or a batch that comes while the backlog waits: its rows, holds
    /// and notes wait in memory, the oldest rows beyond the bound dropped.
    private func keep(_ batch: Batch, error: Error?) {
        backlog.history += batch.history
        backlog.holds += batch.holds
        backlog.closings += batch.closings
        backlog.fates += batch.fates
        backlog.actions += batch.actions
        Self.bound(&backlog.closings)
        Self.bound(&backlog.fates)
        Self.bound(&backlog.actions)
        let over = backlog.history.count - Self.backlogLimit
        if over > 0 {
            backlog.history.removeFirst(over)
            lost += over
            failures.failed("keeping unwritten notifications in memory", "\(Self.backlogLimit) notifications wait in memory for the state database; older ones are dropped from history (counted in focusctl status)")
        }
        guard let error else { return }
        failing = true
        reason = oneLine(error)
        failures.failed(Self.recording, "cannot write \(Count.of(backlog.history.count, "notification")) to the state database (\(reason)); forwarding goes on, and they wait in memory (held ones stay held), tried again every \(retryInterval) ms")
    }

    /// Why the disk refused the last write (SQLite's words).
    private var reason = ""
    /// The same without the statement SQLite quotes, for status.
    private var shortReason: String {
        let marker = Array(" - while executing".utf8)
        let bytes = Array(reason.utf8)
        guard bytes.count >= marker.count,
              let start = (0...(bytes.count - marker.count)).first(where: { bytes[$0..<$0 + marker.count].elementsEqual(marker) })
        else { return reason }
        return String(decoding: bytes[..<start], as: UTF8.self)
    }

    /// What is wrong while a backlog waits, and how to fix it (one sentence); nil when writes work.
    var problem: String? {
        guard failing else { return nil }
        return "cannot write to the state database \(store.path) (\(shortReason)); \(Count.of(backlog.history.count, "notification")) "
            + "wait in memory and are written once it can (held ones stay held); "
            + (lost > 0 ? "\(lost) could not be kept and are missing from history; " : "")
            + "free space on that disk or make it writable"
    }

    private static func bound<Item>(_ items: inout [Item]) {
        if items.count > backlogLimit { items.removeFirst(items.count - backlogLimit) }
    }

    /// The backlog is tried again once `retryInterval` has passed (a write scheduled then joins
    /// the backlog first, and the retry follows).
    private func scheduleRetry() {
        guard retryTimer == .none else { return }
        retryTimer = MainLoop.after(milliseconds: retryInterval) { [weak self] in
            guard let self else { return }
            self.retryTimer = .none
            if self.isPending { return self.scheduleRetry() }
            if !self.backlog.isEmpty { self.write(retrying: true) }
        }
    }
}

/// An error as one log line (SQLite's messages quote statements that span lines).
func oneLine(_ error: Error) -> String {
    String(describing: error).split(separator: "\n").map { String($0) }.joined(separator: " ")
}
