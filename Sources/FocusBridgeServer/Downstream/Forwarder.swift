import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import Logging

/// What the forwarder asks of and tells the bridge.
protocol ForwarderEvents: AnyObject {
    /// Whether anything may go to a target now: callers hear their IDs first, so nothing is
    /// sent while answers wait for their commit.
    var mayForward: Bool { get }
    /// Whether bridge ID `id` is still alive: a target's ID is bound only to a live one.
    func isAlive(_ id: UInt32) -> Bool
    /// `id` ended at the forwarder: its target refused it, it was given up, or a target that
    /// sends no signals (GNOME Shell's GTK interface) took it off the screen.
    func givenUp(_ id: UInt32, reason: CloseReason)
    /// A target took a notification: room in its queue.
    func took()
    /// Before the heap is trimmed after a burst: caches to give back first (SQLite's pages).
    func trimming()
    /// `id` went to the log, not to a daemon (log mode).
    func logged(_ id: UInt32)
}

extension ForwarderEvents {
    func logged(_ id: UInt32) {}
}

/// What a forwarder sends: one notification encoded for its target. A class, immutable: it goes
/// into the queue, out of it and into the call's completion without copying its texts.
protocol ForwardPayload: AnyObject, Sendable {
    /// The bridge ID it is shown as.
    var id: UInt32 { get }
    /// About the bytes it holds: what waiting costs.
    var weight: Int { get }
}

/// Where a `Forwarder` sends: the notification daemon (`DaemonTarget`) or GNOME Shell's GTK
/// interface (`GtkShell`). The forwarder is generic over it, so each is called directly, never
/// through a box.
protocol ForwardTarget {
    associatedtype Payload: ForwardPayload
    /// Who it is, in the log: "the daemon", "GNOME Shell".
    static var described: String { get }
    /// At most this many notifications, and this many bytes of them, wait for it; past either
    /// the oldest is given up.
    static var maxQueued: Int { get }
    static var maxQueuedBytes: Int { get }
    /// Whether it is there to take calls now.
    var isConnected: Bool { get }
    /// Whether what it takes only goes to the log.
    var logsOnly: Bool { get }
    /// Shows `payload`, replacing its copy `shownID` (0: none); `completion` gets the ID it
    /// shows it as.
    func notify(_ payload: Payload, replacing shownID: UInt32,
                completion: @escaping (Result<UInt32, DBusError>) -> Void)
    /// Takes its copy `shownID` of bridge ID `bridgeID` off the screen. True when that ends the
    /// ID at once (no signal will say it closed); false when the target's own signal will.
    func close(shownID: UInt32, bridgeID: UInt32) -> Bool
}

/// The notification daemon as a forwarder's target: the `Downstream` the bridge delivers to.
struct DaemonTarget: ForwardTarget {
    let downstream: any Downstream

    static var described: String { "the daemon" }
    static var maxQueued: Int { 10_000 }
    static var maxQueuedBytes: Int { 64 << 20 }

    var isConnected: Bool { downstream.isConnected }
    var logsOnly: Bool { downstream.mode == .log }

    func notify(_ payload: ForwardedNotification, replacing shownID: UInt32,
                completion: @escaping (Result<UInt32, DBusError>) -> Void) {
        downstream.notify(payload, replacing: shownID, completion: completion)
    }

    /// The daemon's `NotificationClosed` ends the ID.
    func close(shownID: UInt32, bridgeID: UInt32) -> Bool {
        downstream.close(daemonID: shownID, bridgeID: bridgeID)
        return false
    }
}

extension ForwardedNotification: ForwardPayload {}

/// Forwarding to a target (the daemon, or GNOME Shell's GTK interface): the queue (first in,
/// first out, at most 8 calls in flight, bounded by count and bytes), the target's IDs for the
/// bridge's, retries while the target is away, and giving the heap back after a burst
/// (docs/RELIABILITY.md). Who holds each ID is the bridge's.
final class Forwarder<Target: ForwardTarget> {
    static var maxQueued: Int { Target.maxQueued }
    static var maxQueuedBytes: Int { Target.maxQueuedBytes }

    let target: Target
    /// The target's ID for each bridge ID it shows.
    private(set) var daemonIDs = DaemonIDs()
    private var queue = ForwardQueue<ForwardWork<Target.Payload>>(maxInFlight: 8, weigh: ForwardWork.weight)
    private let logger: Logger
    private(set) var delivered = 0
    /// Notifications handled since the heap was last trimmed, and the bytes of their arguments.
    private var sinceTrim = 0
    private var bytesSinceTrim = 0
    /// In flight when they were withdrawn: never sent again.
    private var withdrawn: Set<UInt32> = []

    weak var events: ForwarderEvents?
    private var mayForward: Bool { events?.mayForward ?? true }

    init(target: Target, logger: Logger) {
        self.target = target
        self.logger = logger
    }

    var queued: Int { queue.queued }
    var inFlight: Int { queue.inFlight }

    // MARK: The target's IDs

    /// Bridge ID `id` ended: the target's ID for it is forgotten.
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

    /// Queues `notification` for the target, within the bounds.
    func send(_ notification: Target.Payload) {
        queue.enqueue(notification.id, .notify(notification), merge: ForwardWork.merge)
        while queue.queued > Self.maxQueued || (queue.queuedWeight > Self.maxQueuedBytes && queue.queued > 1),
              let oldest = queue.dropOldest() {
            // Memory stays bounded while the target is away or slow: the oldest never shown is given up.
            logger.warning("more than \(Self.maxQueued) notifications or \(Self.maxQueuedBytes >> 20) MiB wait for \(Target.described); notification \(oldest.id) given up")
            events?.givenUp(oldest.id, reason: .undefined)
        }
        pump()
    }

    /// Asks the target to close `id` (after what waits for it).
    func close(_ id: UInt32) {
        queue.enqueue(id, .close, merge: ForwardWork.merge)
        pump()
    }

    /// `id` ended without the target's word (GNOME Shell's copy removed by its app): what waits
    /// of it never goes, and a call for it in flight is not made again should the target be
    /// away. True when the target may show it (it took it, or a call is out), so the caller
    /// removes it there.
    func withdraw(_ id: UInt32) -> Bool {
        _ = queue.withdraw(id)
        let inFlight = queue.isInFlight(id)
        if inFlight { withdrawn.insert(id) }
        return inFlight || daemonIDs.daemonID(of: id) != nil
    }

    /// Closes the target's copy of `id` now, if it shows one.
    func closeNow(_ id: UInt32) {
        if let daemonID = daemonIDs.daemonID(of: id), target.close(shownID: daemonID, bridgeID: id) {
            events?.givenUp(id, reason: .closedByCall)
        }
    }

    /// `pump`, when anything waits: what each commit asks of the GTK door's forwarder, which is
    /// empty for every fdo notification.
    func pumpIfWaiting() {
        if queue.queued > 0 { pump() }
    }

    /// Sends what may be sent now: in order, within the in-flight bound, only while the target is there.
    func pump() {
        guard mayForward else { return }
        defer { trimAfterBurst() }
        while target.isConnected, let job = queue.next() {
            switch job.work {
            case .notify(let notification):
                let replacing = daemonIDs.daemonID(of: job.id) ?? 0
                target.notify(notification, replacing: replacing) { [weak self] result in
                    self?.forwarded(job, result: result)
                }
            case .close:
                queue.finish(job.id)
                if let daemonID = daemonIDs.daemonID(of: job.id) {
                    // A target without signals ends the ID here.
                    if target.close(shownID: daemonID, bridgeID: job.id) { events?.givenUp(job.id, reason: .closedByCall) }
                } else {
                    // Never shown (or collapsed): close it here.
                    events?.givenUp(job.id, reason: .closedByCall)
                }
            }
        }
    }

    private func forwarded(_ job: ForwardQueue<ForwardWork<Target.Payload>>.Job, result: Result<UInt32, DBusError>) {
        let wasWithdrawn = !withdrawn.isEmpty && withdrawn.remove(job.id) != nil
        switch result {
        case .success(let daemonID):
            queue.finish(job.id)
            delivered += 1
            // One that ended while the target was answering stays unbound.
            if events?.isAlive(job.id) ?? true { daemonIDs.bind(job.id, daemonID: daemonID) }
            // History must not say delivered for what only the log printed.
            if target.logsOnly { events?.logged(job.id) }
            events?.took()
        case .failure(let error) where error.meansDaemonAbsent && wasWithdrawn:
            queue.finish(job.id)
        case .failure(let error) where error.meansDaemonAbsent:
            queue.retry(job) // sent again when the target is back
        case .failure(let error):
            queue.finish(job.id)
            logger.warning("\(Target.described) did not take notification \(job.id): \(error)")
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

extension Forwarder where Target == DaemonTarget {
    convenience init(downstream: any Downstream, logger: Logger) {
        self.init(target: DaemonTarget(downstream: downstream), logger: logger)
    }

    var downstream: any Downstream { target.downstream }
}

/// What the forwarder sends for a notification.
enum ForwardWork<Payload: ForwardPayload>: Sendable {
    case notify(Payload)
    case close

    @Sendable static func weight(_ work: ForwardWork) -> Int {
        if case .notify(let notification) = work { notification.weight } else { 0 }
    }

    /// Newer work for the same notification replaces older work that was never sent.
    static func merge(_ old: ForwardWork, _ new: ForwardWork) -> ForwardWork { new }
}
