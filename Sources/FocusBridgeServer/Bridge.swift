import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeStore
import Foundation
import Logging

/// The bridge: takes each `Notify` from an application, decides, records, answers at once, and
/// forwards to the daemon in the background; translates the daemon's signals back to the
/// application that owns the notification.
final class Bridge {
    let bus: BusConnection
    let downstream: Downstream
    private let store: Store
    private let logger: Logger
    private let clock: Clock
    private let policy = Policy()
    private let senders: SenderDirectory
    private var ids: IDAllocator
    private var table = NotificationTable()
    private var queue = ForwardQueue<ForwardWork>(maxInFlight: 8)
    private(set) var received = 0
    private(set) var delivered = 0

    init(bus: BusConnection, downstream: Downstream, store: Store, clock: Clock = SystemClock(),
         logger: Logger) throws {
        self.bus = bus
        self.downstream = downstream
        self.store = store
        self.clock = clock
        self.logger = logger
        senders = SenderDirectory(bus: bus)
        ids = IDAllocator(persistedHighWater: try store.idHighWater())
        downstream.events = self
    }

    /// What clients are told the daemon can do.
    var capabilities: [String] { downstream.capabilities ?? ["actions", "body"] }

    var queuedCount: Int { queue.queued }
    var inFlightCount: Int { queue.inFlight }

    // MARK: Calls from applications

    func notify(_ call: MethodCall) {
        senders.withIdentity(of: call.sender) { [self] process in
            accept(call, process: process)
        }
    }

    private func accept(_ call: MethodCall, process: ProcessIdentity?) {
        let notification = NotificationsInterface.decode(call.parameters)
        let app = AppIdentity.resolve(notification, process: process)
        senders.remember(appKey: app.key, for: call.sender)
        let id: UInt32
        if table.owned(notification.replacesID, sender: call.sender, appKey: app.key) != nil {
            id = notification.replacesID
        } else {
            let allocation = ids.allocate()
            if let reserve = allocation.reserve {
                do { try store.setIDHighWater(reserve) } catch {
                    logger.error("cannot record the ID high-water mark: \(error)")
                }
            }
            id = allocation.id
        }
        let decision = policy.decide(notification, app: app)
        do {
            try store.record([HistoryEntry(id: id, app: app.key, summary: notification.summary, body: notification.body,
                                           level: decision.level, decision: decision.outcome, received: clock.now)])
        } catch {
            logger.error("cannot record notification \(id) in history: \(error)")
        }
        received += 1
        table.track(id, appKey: app.key, sender: call.sender)
        call.reply(.tuple([.uint32(id)]))

        let forwarded = ForwardedNotification(
            id: id, appKey: app.key, level: decision.level,
            appName: call.parameters.child(0), appIcon: call.parameters.child(2),
            summary: call.parameters.child(3), body: call.parameters.child(4),
            actions: call.parameters.child(5),
            hints: forwardedHints(call.parameters.child(6), notification: notification, app: app, process: process),
            expireTimeout: call.parameters.child(7))
        queue.enqueue(id, .notify(forwarded), merge: ForwardWork.merge)
        pump()
    }

    /// The client's hints, untouched, plus `desktop-entry` and `sender-pid` when missing, so the
    /// daemon credits the application rather than the bridge.
    private func forwardedHints(_ hints: Variant, notification: NotificationRequest, app: AppIdentity,
                                process: ProcessIdentity?) -> Variant {
        var additions: [(key: String, value: Variant)] = []
        if notification.hints["desktop-entry"] == nil, let entry = app.inferredDesktopEntry {
            additions.append(("desktop-entry", .string(entry)))
        }
        if notification.hints["sender-pid"] == nil, let pid = process?.processID {
            additions.append(("sender-pid", .int64(Int64(pid))))
        }
        guard !additions.isEmpty else { return hints }
        return .dictionary(hints.dictionaryEntries + additions)
    }

    func close(_ call: MethodCall, id: UInt32) {
        senders.withIdentity(of: call.sender) { [self] process in
            let processKey = AppIdentity.resolve(NotificationRequest(), process: process).key
            let keys = [processKey] + senders.appKeys(of: call.sender)
            // Someone else's ID is treated as unknown: success, no effect.
            if table.owned(id, sender: call.sender, appKeys: keys) != nil {
                queue.enqueue(id, .close, merge: ForwardWork.merge)
                pump()
            }
            call.reply()
        }
    }

    // MARK: Forwarding

    /// Sends what may be sent now: in order, within the in-flight bound, only while the daemon is there.
    private func pump() {
        while downstream.isConnected, let job = queue.next() {
            switch job.work {
            case .notify(let notification):
                let replacing = table[job.id]?.daemonID ?? 0
                downstream.notify(notification, replacing: replacing) { [weak self] result in
                    self?.forwarded(job, result: result)
                }
            case .close:
                queue.finish(job.id)
                if let daemonID = table[job.id]?.daemonID {
                    downstream.close(daemonID: daemonID, bridgeID: job.id)
                } else {
                    // Never shown: close it here.
                    notificationClosed(job.id, reason: 3)
                }
            }
        }
    }

    private func forwarded(_ job: ForwardQueue<ForwardWork>.Job, result: Result<UInt32, DBusError>) {
        switch result {
        case .success(let daemonID):
            queue.finish(job.id)
            delivered += 1
            if table[job.id] != nil { table.bind(job.id, daemonID: daemonID) }
        case .failure(let error) where error.meansDaemonAbsent:
            queue.retry(job) // sent again when the daemon is back
        case .failure(let error):
            queue.finish(job.id)
            logger.warning("the daemon did not take notification \(job.id): \(error)")
            if error.name != DBusError.noReply { notificationClosed(job.id, reason: 4) }
        }
        pump()
    }

    /// Tells the owning application that its notification closed, and forgets it.
    private func notificationClosed(_ id: UInt32, reason: UInt32) {
        guard let entry = table.remove(id) else { return }
        emit("NotificationClosed", to: entry.sender, .tuple([.uint32(id), .uint32(reason)]))
        recordClosed([(id, reason, clock.now)])
    }

    private func recordClosed(_ closings: [(id: UInt32, reason: UInt32, at: Date)]) {
        do { try store.markClosed(closings) } catch { logger.error("cannot record closings: \(error)") }
    }

    private func emit(_ signal: String, to destination: String, _ arguments: Variant) {
        bus.emitSignal(destination: destination, path: NotificationsInterface.path,
                       interface: NotificationsInterface.name, name: signal, arguments)
    }
}

extension Bridge: DownstreamEvents {
    func downstreamReady() { pump() }

    func downstreamGone() {
        let shown = table.forgetDaemon()
        guard !shown.isEmpty else { return }
        logger.warning("the daemon went away; \(shown.count) notification(s) it showed are reported closed")
        let now = clock.now
        for entry in shown {
            emit("NotificationClosed", to: entry.sender, .tuple([.uint32(entry.id), .uint32(4)]))
        }
        recordClosed(shown.map { ($0.id, 4, now) })
    }

    func downstreamSignal(_ signal: Signal) {
        let arguments = signal.parameters
        guard arguments.childCount == 2, let daemonID = arguments.child(0).uint32,
              let id = table.id(forDaemonID: daemonID), let entry = table[id] else { return }
        switch signal.member {
        case "NotificationClosed":
            notificationClosed(id, reason: arguments.child(1).uint32 ?? 4)
        case "ActionInvoked", "ActivationToken", "NotificationReplied":
            guard arguments.child(1).isString else { return }
            emit(signal.member, to: entry.sender, .tuple([.uint32(id), arguments.child(1)]))
        default:
            break
        }
    }
}
