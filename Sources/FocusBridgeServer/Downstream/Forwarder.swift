import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import Logging

/// What the forwarder asks of and tells the bridge.
protocol ForwarderEvents: AnyObject {
    /// Whether anything may go to the daemon now: callers hear their IDs first, so nothing is
    /// sent while answers wait for their commit.
    var mayForward: Bool { get }
    /// Whether bridge ID `id` is still alive: a daemon ID is bound only to a live one.
    func isAlive(_ id: UInt32) -> Bool
    /// The daemon refused `id`, or it was given up: it ended.
    func givenUp(_ id: UInt32, reason: CloseReason)
    /// The daemon took a notification: room in the queue.
    func took()
    /// Before the heap is trimmed after a burst: caches to give back first (SQLite's pages).
    func trimming()
    /// `id` went to the log, not to a daemon (log mode).
    func logged(_ id: UInt32)
}

extension ForwarderEvents {
    func logged(_ id: UInt32) {}
}

/// Forwarding to the daemon: the queue (first in, first out, at most 8 calls in flight, bounded
/// by count and bytes), the daemon's IDs for the bridge's, retries while the daemon is away, and
/// giving the heap back after a burst (docs/RELIABILITY.md). Who holds each ID is the bridge's.
final class Forwarder {
    /// At most this many notifications, and this many bytes of them, wait for the daemon; past
    /// either the oldest is given up.
    static let maxQueued = 10_000
    static let maxQueuedBytes = 64 << 20

    let downstream: Downstream
    /// The daemon's ID for each bridge ID it shows.
    private(set) var daemonIDs = DaemonIDs()
    private var queue = ForwardQueue<ForwardWork>(maxInFlight: 8, weigh: ForwardWork.weight)
    private let logger: Logger
    private(set) var delivered = 0
    /// Notifications handled since the heap was last trimmed, and the bytes of their arguments.
    private var sinceTrim = 0
    private var bytesSinceTrim = 0

    weak var events: ForwarderEvents?
    private var mayForward: Bool { events?.mayForward ?? true }

    init(downstream: Downstream, logger: Logger) {
        self.downstream = downstream
        self.logger = logger
    }

    var queued: Int { queue.queued }
    var inFlight: Int { queue.inFlight }

    // MARK: The daemon's IDs

    /// Bridge ID `id` ended: the daemon's ID for it is forgotten.
    func forget(_ id: UInt32) { daemonIDs.forget(id) }

    /// The bridge ID a daemon signal is about.
    func id(forDaemonID daemonID: UInt32) -> UInt32? { daemonIDs.id(forDaemonID: daemonID) }

    /// The daemon went away: the bridge IDs it showed, forgotten here.
    func daemonGone() -> [UInt32] { daemonIDs.forgetAll() }

    // MARK: Sending

    /// Counts handled calls toward the next heap trim.
    func handled(_ count: Int, bytes: Int = 0) {
        sinceTrim += count
        bytesSinceTrim += bytes
    }

    /// Queues `notification` for the daemon, within the bounds.
    func send(_ notification: ForwardedNotification) {
        queue.enqueue(notification.id, .notify(notification), merge: ForwardWork.merge)
        while queue.queued > Self.maxQueued || (queue.queuedWeight > Self.maxQueuedBytes && queue.queued > 1),
              let oldest = queue.dropOldest() {
            // Memory stays bounded while the daemon is away or slow: the oldest never shown is given up.
            logger.warning("more than \(Self.maxQueued) notifications or \(Self.maxQueuedBytes >> 20) MiB wait for the daemon; notification \(oldest.id) given up")
            events?.givenUp(oldest.id, reason: .undefined)
        }
        pump()
    }

    /// Asks the daemon to close `id` (after what waits for it).
    func close(_ id: UInt32) {
        queue.enqueue(id, .close, merge: ForwardWork.merge)
        pump()
    }

    /// Closes the daemon's copy of `id` now, if it shows one.
    func closeNow(_ id: UInt32) {
        if let daemonID = daemonIDs.daemonID(of: id) { downstream.close(daemonID: daemonID, bridgeID: id) }
    }

    /// Sends what may be sent now: in order, within the in-flight bound, only while the daemon is there.
    func pump() {
        guard mayForward else { return }
        defer { trimAfterBurst() }
        while downstream.isConnected, let job = queue.next() {
            switch job.work {
            case .notify(let notification):
                let replacing = daemonIDs.daemonID(of: job.id) ?? 0
                downstream.notify(notification, replacing: replacing) { [weak self] result in
                    self?.forwarded(job, result: result)
                }
            case .close:
                queue.finish(job.id)
                if let daemonID = daemonIDs.daemonID(of: job.id) {
                    downstream.close(daemonID: daemonID, bridgeID: job.id)
                } else {
                    // Never shown (or collapsed): close it here.
                    events?.givenUp(job.id, reason: .closedByCall)
                }
            }
        }
    }

    private func forwarded(_ job: ForwardQueue<ForwardWork>.Job, result: Result<UInt32, DBusError>) {
        switch result {
        case .success(let daemonID):
            queue.finish(job.id)
            delivered += 1
            // One that ended while the daemon was answering stays unbound.
            if events?.isAlive(job.id) ?? true { daemonIDs.bind(job.id, daemonID: daemonID) }
            // History must not say delivered for what only the log printed.
            if downstream.mode == .log { events?.logged(job.id) }
            events?.took()
        case .failure(let error) where error.meansDaemonAbsent:
            queue.retry(job) // sent again when the daemon is back
        case .failure(let error):
            queue.finish(job.id)
            logger.warning("the daemon did not take notification \(job.id): \(error)")
            if error.name != DBusError.noReply { events?.givenUp(job.id, reason: .undefined) }
        }
        pump()
    }

    /// After a burst, once everything is sent, gives the freed heap back to the system: malloc
    /// keeps it otherwise, and the bridge would stay as large as its largest flood.
    private func trimAfterBurst() {
        guard sinceTrim >= 1000 || bytesSinceTrim >= 64 << 20, queue.inFlight == 0, queue.queued == 0,
              mayForward else { return }
        sinceTrim = 0
        bytesSinceTrim = 0
        MainLoop.whenIdle { [weak events] in
            events?.trimming()
            Heap.trim()
        }
    }
}

/// What the forwarder sends for a notification.
enum ForwardWork {
    case notify(ForwardedNotification)
    case close

    @Sendable static func weight(_ work: ForwardWork) -> Int {
        if case .notify(let notification) = work { notification.weight } else { 0 }
    }

    /// Newer work for the same notification replaces older work that was never sent.
    static func merge(_ old: ForwardWork, _ new: ForwardWork) -> ForwardWork { new }
}
