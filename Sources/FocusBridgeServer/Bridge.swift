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
    private let senders: SenderDirectory
    private var ids: IDAllocator
    private var table = NotificationTable()
    private var queue = ForwardQueue<ForwardWork>(maxInFlight: 8)
    private var recent = DuplicateTracker()
    private(set) var received = 0
    private(set) var delivered = 0
    /// The policy part of the configuration (replaced on reload).
    var settings: PolicySettings
    /// Silent mode (the Ring/Silent switch), kept in the store across restarts.
    private(set) var silent: Bool
    /// Whether the screen is locked, for `previews = "when-unlocked"`.
    var screenLocked = false

    init(bus: BusConnection, downstream: Downstream, store: Store, settings: PolicySettings,
         clock: Clock = SystemClock(), logger: Logger) throws {
        self.bus = bus
        self.settings = settings
        silent = try store.setting("silent") == "on"
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

    /// The live state a decision depends on.
    func policyContext(activeFocus: FocusProfile? = nil) -> PolicyContext {
        PolicyContext(settings: settings, now: clock.now, silent: silent, screenLocked: screenLocked,
                      capabilities: capabilities, activeFocus: activeFocus, recent: recent)
    }

    private func accept(_ call: MethodCall, process: ProcessIdentity?) {
        let notification = NotificationsInterface.decode(call.parameters)
        let app = AppIdentity.resolve(notification, process: process)
        senders.remember(appKey: app.key, for: call.sender)
        let decision = Policy.decide(notification, app: app, context: policyContext())
        let id = notificationID(for: notification, decision: decision, sender: call.sender)
        do {
            try store.record([HistoryEntry(id: id, app: app.key, summary: notification.summary, body: notification.body,
                                           level: decision.level, decision: decision.outcome, received: clock.now)])
        } catch {
            logger.error("cannot record notification \(id) in history: \(error)")
        }
        received += 1
        call.reply(.tuple([.uint32(id)]))
        logger.debug("notification \(id): \(decision.trace.joined(separator: "; "))")

        switch decision.outcome {
        case .dropped, .heldFocus, .heldSummary:
            return
        case .delivered, .coalesced:
            break
        }
        table.track(id, appKey: app.key, sender: call.sender, actionKeys: decision.actions.originalKeys)
        recent.delivered(id, appKey: app.key, summary: notification.summary, body: notification.body, at: clock.now)
        let presentation = decision.presentation
        let forwarded = ForwardedNotification(
            id: id, appKey: app.key, level: decision.level,
            appName: call.parameters.child(0), appIcon: call.parameters.child(2),
            summary: presentation.summary.map(Variant.string) ?? call.parameters.child(3),
            body: presentation.body.map(Variant.string) ?? call.parameters.child(4),
            actions: .strings(decision.actions.flat),
            hints: HintEditor.forwardedHints(call.parameters.child(6), presentation: presentation,
                                             notification: notification, app: app, process: process),
            expireTimeout: call.parameters.child(7))
        queue.enqueue(id, .notify(forwarded), merge: ForwardWork.merge)
        pump()
    }

    /// The ID to answer: the earlier notification's for a duplicate, the replaced one's when the
    /// client may replace it, else a new one.
    private func notificationID(for notification: NotificationRequest, decision: Decision, sender: String) -> UInt32 {
        if let original = decision.replaces, table[original] != nil { return original }
        if table.owned(notification.replacesID, sender: sender, appKey: decision.app.key) != nil {
            return notification.replacesID
        }
        let allocation = ids.allocate()
        if let reserve = allocation.reserve {
            do { try store.setIDHighWater(reserve) } catch {
                logger.error("cannot record the ID high-water mark: \(error)")
            }
        }
        return allocation.id
    }

    /// Turns silent mode on or off, durably.
    func setSilent(_ on: Bool) throws {
        try store.setSetting("silent", on ? "on" : "off")
        silent = on
        logger.info("silent mode \(on ? "on" : "off")")
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
        recent.closed(id)
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
            recent.closed(entry.id)
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
        case "ActionInvoked":
            guard let key = arguments.child(1).string else { return }
            emit(signal.member, to: entry.sender, .tuple([.uint32(id), .string(entry.clientKey(for: key))]))
        case "ActivationToken", "NotificationReplied":
            guard arguments.child(1).isString else { return }
            emit(signal.member, to: entry.sender, .tuple([.uint32(id), arguments.child(1)]))
        default:
            break
        }
    }
}
