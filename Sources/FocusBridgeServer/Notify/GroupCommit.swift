import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeStore
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
final class GroupCommit {
    /// An ID whose life ended as it was handed out: its holders are told once they have the ID.
    struct End {
        let id: UInt32
        let reason: CloseReason
        let holders: [Caller]
    }

    private struct Batch {
        var history: [HistoryEntry] = []
        var holds: [(hold: Store.Hold, fallback: () -> Void)] = []
        /// The replies to send once the batch is written.
        var answers: [Answer] = []
        var ends: [End] = []
        /// Ends to note in history: many in one transaction (a Dismiss may end thousands).
        var closings: [(id: UInt32, reason: UInt32, at: Instant)] = []
        /// Steps of fates to note in history (`Fate`), after the rows of this batch are written.
        var fates: [(id: UInt32, step: FateStep)] = []

        /// Empties the batch for the next one, keeping its arrays' storage (not grown afresh for
        /// every batch) unless a burst made one large.
        mutating func empty() {
            Self.empty(&history)
            Self.empty(&holds)
            Self.empty(&answers)
            Self.empty(&ends)
            Self.empty(&closings)
            Self.empty(&fates)
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
    private static let holding = "holding notifications in the state database"

    private let store: Store
    private let failures: FailureLog
    private var pending = Batch()
    /// The storage of the batch written last, emptied: the next batch after this one fills it.
    private var spare = Batch()
    /// A write is scheduled: answers (and the forwarding behind them) wait for it.
    private(set) var isPending = false

    /// After holds the store refused were handed to their fallbacks.
    var holdsRefused: () -> Void = {}
    /// After each write, once its callers are answered: the ends to tell, and how many calls
    /// were answered.
    var committed: (_ ends: [End], _ answered: Int) -> Void = { _, _ in }

    /// The write, as the callback scheduled for it: made once (not a closure per batch).
    private lazy var writeLater: () -> Void = { [weak self] in self?.write() }

    init(store: Store, failures: FailureLog) {
        self.store = store
        self.failures = failures
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

    /// Stores a held notification with this batch; `fallback` runs if the store refuses it
    /// (delivering is better than losing it).
    func hold(_ hold: Store.Hold, fallback: @escaping () -> Void) {
        pending.holds.append((hold, fallback))
    }

    /// Held notifications released before they were written must not be written at all.
    func withdrawHolds(_ ids: Set<UInt32>) {
        pending.holds.removeAll { ids.contains($0.hold.item.id) }
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

    private func write() {
        isPending = false
        var batch = pending
        pending = spare
        spare = Batch()
        defer {
            batch.empty()
            spare = batch
        }
        do {
            try store.commit(history: batch.history, holds: batch.holds.map(\.hold))
            failures.succeeded(Self.recording)
            failures.succeeded(Self.holding)
        } catch {
            failures.failed(Self.recording, "cannot write \(batch.history.count) notification(s) to the state database (\(oneLine(error))); forwarding goes on, \(batch.holds.count) that were to be held are delivered instead")
            if !batch.holds.isEmpty {
                failures.failed(Self.holding, "\(batch.holds.count) notification(s) that were to be held cannot be stored, so they are delivered instead")
                for (_, fallback) in batch.holds { fallback() }
                holdsRefused()
            }
        }
        do { try store.markClosed(batch.closings); failures.succeeded("recording closings") } catch {
            failures.failed("recording closings", "cannot record closings in the state database: \(oneLine(error))")
        }
        do { try store.noteFates(batch.fates); failures.succeeded("recording fates") } catch {
            failures.failed("recording fates", "cannot record what became of notifications in the state database: \(oneLine(error))")
        }
        for answer in batch.answers { answer.send() }
        committed(batch.ends, batch.answers.count)
    }
}

/// An error as one log line (SQLite's messages quote statements that span lines).
func oneLine(_ error: Error) -> String {
    String(describing: error).split(separator: "\n").map { String($0) }.joined(separator: " ")
}
