import FocusBridgeCore
import FocusBridgeLoop
import FocusBridgeStore
import FocusBridgeTime
import Logging

/// Keeps the history within `history-max-mb` (`HistorySize`, `Store.trimHistory`), off the path
/// of the calls: a look after a commit once enough rows were written (its callers are answered
/// by then), one bounded batch forgotten per pass, and the next pass when the loop is idle (bus
/// work goes first) until the history is within its bound; while a flood goes on, each commit
/// runs a pass too, so the forgetting keeps up with the writing. Asked at a quiet moment
/// (`maintain`: start, the daily prune), it also compacts a file far over the bound once the
/// history is within it.
final class HistoryTrimmer {
    /// A log line says how many were forgotten at most this often (a flood trims every few commits).
    static let logInterval: Double = 600
    private static let operation = "keeping the history within history-max-mb"

    private let store: Store
    private let failures: FailureLog
    private let logger: Logger
    private let clock: Clock
    private var passScheduled = false
    private var compactWhenWithin = false
    /// Forgotten since the last log line, and when that was.
    private var forgotten = 0
    private var lastLogged: Instant?
    /// The next pass, as the callback scheduled for it: made once.
    private lazy var passLater: () -> Void = { [weak self] in
        self?.passScheduled = false
        self?.pass()
    }

    init(store: Store, failures: FailureLog, logger: Logger, clock: Clock) {
        self.store = store
        self.failures = failures
        self.logger = logger
        self.clock = clock
    }

    /// The bound (`history-max-mb`); a new one is looked at with the next commit or `maintain`.
    var size: HistorySize? {
        get { store.historySize }
        set { store.historySize = newValue }
    }

    /// After each commit: a pass when the store says a look is due (a counter compared: nothing
    /// else on most commits).
    func afterCommit() {
        guard store.isHistoryTrimDue, !passScheduled else { return }
        pass()
    }

    /// At start and with the daily prune: passes until within, then a file far over the bound is
    /// compacted (`Store.compactIfFarOver`).
    func maintain() {
        compactWhenWithin = true
        guard !passScheduled else { return }
        pass()
    }

    private func pass() {
        let trim: Store.HistoryTrim
        do {
            trim = try store.trimHistory()
            failures.succeeded(Self.operation)
        } catch {
            failures.failed(Self.operation, "cannot forget the oldest history to keep it within history-max-mb: \(oneLine(error))")
            return
        }
        forgotten += trim.forgotten
        guard trim.isWithin else {
            passScheduled = true
            MainLoop.whenIdle(passLater)
            return
        }
        let now = clock.now
        if forgotten > 0, lastLogged.map({ now.timeIntervalSince($0) >= Self.logInterval || now < $0 }) ?? true {
            let megabytes = (size?.maxBytes ?? 0) / HistorySize.mebibyte
            logger.info("history: \(Count.of(forgotten, "notification")) forgotten, the oldest, to keep it within \(megabytes) MiB (history-max-mb)")
            forgotten = 0
            lastLogged = now
        }
        guard compactWhenWithin else { return }
        compactWhenWithin = false
        do {
            let before = try store.diskUse()
            if try store.compactIfFarOver() {
                let after = try store.diskUse()
                let from = Self.mebibytes(before.fileBytes + before.walBytes), to = Self.mebibytes(after.fileBytes + after.walBytes)
                logger.info("history: the state database was compacted from \(from) to \(to) MiB")
            }
        } catch {
            logger.error("cannot compact the state database: \(oneLine(error))")
        }
    }

    private static func mebibytes(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + HistorySize.mebibyte / 2) / HistorySize.mebibyte
        return "\(tenths / 10).\(tenths % 10)"
    }
}
