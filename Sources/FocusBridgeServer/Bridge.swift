import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeStore
import Foundation
import Logging

/// The bridge: takes each `Notify` from an application, decides, records, answers at once, and
/// forwards to the daemon in the background — or holds it durably for a Focus or the summary;
/// translates the daemon's signals back to the application that owns the notification.
final class Bridge {
    static let ownAppName = "FocusBridge"

    let bus: BusConnection
    let downstream: Downstream
    private let store: Store
    private let logger: Logger
    private let clock: Clock
    let senders: SenderDirectory
    private var ids: IDAllocator
    /// An ID block reserved but not yet stored (the disk refused it).
    private var unsavedHighWater: UInt32?
    private var table = NotificationTable()
    private var queue = ForwardQueue<ForwardWork>(maxInFlight: 8, weigh: ForwardWork.weight)
    /// At most this many notifications, and this many bytes of them, wait for the daemon; past
    /// either the oldest is given up.
    static let maxQueued = 10_000
    static let maxQueuedBytes = 64 << 20
    private var recent = DuplicateTracker()
    /// What is held now, and for a held item already sent out in a digest, that digest's ID.
    private var held: [UInt32: (item: HeldNotification, digest: UInt32?)] = [:]
    private(set) var received = 0
    private(set) var delivered = 0
    /// Per-app rate limits, and the "N more from App" notification of each app over its limit.
    private var flood: FloodGate
    private var collapses: [String: (id: UInt32, count: Int)] = [:]
    /// The policy part of the configuration (replaced on reload).
    var settings: PolicySettings {
        didSet {
            let general = settings.general
            if general.rateLimit != flood.limit || TimeInterval(general.rateLimitSeconds) != flood.window {
                flood = FloodGate(limit: general.rateLimit, window: TimeInterval(general.rateLimitSeconds))
            }
        }
    }
    /// Silent mode (the Ring/Silent switch), kept in the store across restarts.
    private(set) var silent: Bool
    /// Whether the screen is locked, for `previews = "when-unlocked"`.
    var screenLocked = false
    /// The Focus that is on (kept up to date by the `FocusController`).
    var activeFocus: ActiveFocus?
    /// Called when something `focusctl status` shows has changed.
    var stateChanged: () -> Void = {}

    init(bus: BusConnection, downstream: Downstream, store: Store, settings: PolicySettings,
         clock: Clock = SystemClock(), logger: Logger) throws {
        self.bus = bus
        self.settings = settings
        flood = FloodGate(limit: settings.general.rateLimit, window: TimeInterval(settings.general.rateLimitSeconds))
        silent = try store.setting("silent") == "on"
        self.downstream = downstream
        self.store = store
        self.clock = clock
        self.logger = logger
        senders = SenderDirectory(bus: bus)
        ids = IDAllocator(persistedHighWater: try store.idHighWater())
        // A digest sent before a restart is out of reach now: what it stood for waits again.
        let entries = try store.heldNotifications()
        try store.assignDigest(entries.filter { $0.digest != nil }.map(\.item.id), digest: nil)
        for entry in entries { held[entry.item.id] = (entry.item, nil) }
        if !held.isEmpty { logger.info("\(held.count) notification(s) still held from before") }
        downstream.events = self
    }

    /// What clients are told the daemon can do.
    var capabilities: [String] { downstream.capabilities ?? ["actions", "body"] }

    var queuedCount: Int { queue.queued }
    var inFlightCount: Int { queue.inFlight }

    /// Held notifications still waiting (not yet sent out in a digest), oldest first.
    func waiting(_ kind: DeliveryOutcome) -> [HeldNotification] {
        held.values.filter { $0.digest == nil && $0.item.reason.outcome == kind }.map(\.item)
            .sorted { ($0.received, $0.id) < ($1.received, $1.id) }
    }

    /// The live state a decision depends on.
    func policyContext() -> PolicyContext {
        PolicyContext(settings: settings, now: clock.now, silent: silent, screenLocked: screenLocked,
                      capabilities: capabilities, activeFocus: activeFocus.flatMap { settings.focus(named: $0.name) },
                      recent: recent, flood: flood)
    }

    // MARK: Calls from applications

    func notify(_ call: MethodCall) {
        senders.withIdentity(of: call.sender) { [self] process in
            accept(call, process: process)
        }
    }

    private func accept(_ call: MethodCall, process: ProcessIdentity?) {
        let notification = NotificationsInterface.decode(call.parameters)
        bytesSinceTrim += call.parameters.byteCount
        let app = AppIdentity.resolve(notification, process: process)
        senders.remember(appKey: app.key, for: call.sender)
        var decision = Policy.decide(notification, app: app, context: policyContext())
        let replacing = notification.replacesID
        let replacesShown = table.owned(replacing, sender: call.sender, appKey: app.key) != nil
        let replacesHeld = ownsHeld(replacing, sender: call.sender, appKeys: [app.key])
        if replacesShown && (decision.outcome == .heldFocus || decision.outcome == .heldSummary) {
            // An update of something already on screen stays on screen.
            decision.outcome = .delivered
            decision.trace.append("delivery: delivered after all (it replaces notification \(replacing), already shown)")
        }
        if decision.outcome == .heldFocus || decision.outcome == .heldSummary,
           !HeldNotification.mayHold(payloadBytes: call.parameters.byteCount) {
            decision.outcome = .delivered
            logger.warning("a notification of \(app.key) weighs \(call.parameters.byteCount) bytes, more than a held one may (\(HeldNotification.maxPayloadBytes)); delivered now")
        }
        let id: UInt32
        if let original = decision.replaces, table[original] != nil {
            id = original
        } else if replacesShown || replacesHeld {
            id = replacing
        } else {
            id = newID()
        }
        let history = HistoryEntry(id: id, app: app.key, summary: notification.summary, body: notification.body,
                                   level: decision.level, decision: decision.outcome, received: clock.now)
        received += 1
        logger.debug("notification \(id): \(decision.trace.joined(separator: "; "))")

        switch decision.outcome {
        case .heldFocus, .heldSummary:
            let reason: HeldNotification.Reason = decision.outcome == .heldSummary ? .summary : .focus(activeFocus?.name ?? "")
            let item = HeldNotification(id: id, reason: reason, app: app.key, summary: notification.summary,
                                        body: notification.body, level: decision.level,
                                        relevance: HeldNotification.relevance(of: notification), received: clock.now,
                                        sender: call.sender, processID: process?.processID)
            held[id] = (item, nil)
            // Durable before the caller hears the ID: answered once the batch is committed.
            let hold = Store.Hold(item: item, payloadType: call.parameters.typeString, payload: call.parameters.bytes)
            let sender = call.sender
            pending.holds.append((hold, { [weak self] in
                // The store refused it: delivering is better than losing it.
                self?.deliver(id, arguments: call.parameters, notification: notification, decision: decision,
                              sender: sender, processID: process?.processID)
            }))
            commitThenAnswer(call, id, history)
            stateChanged()
        case .dropped:
            if replacesHeld { releaseHeld([id]) }
            commitThenAnswer(call, id, history)
        case .collapsed:
            commitThenAnswer(call, id, history)
            collapse(app: app, arguments: call.parameters, latest: notification.summary)
        case .delivered, .coalesced:
            if replacesHeld { releaseHeld([id]) }
            commitThenAnswer(call, id, history)
            deliver(id, arguments: call.parameters, notification: notification, decision: decision,
                    sender: call.sender, processID: process?.processID)
        }
    }

    // MARK: Group commit

    /// What waits to be written, and the callers waiting for that write to hear their ID.
    private struct Batch {
        var history: [HistoryEntry] = []
        var holds: [(hold: Store.Hold, fallback: () -> Void)] = []
        var answers: [(call: MethodCall, id: UInt32)] = []
    }

    private var pending = Batch()
    /// Notifications handled since the heap was last trimmed.
    private var sinceTrim = 0
    /// And the bytes of their arguments: a few hundred megabyte-sized calls are a burst too.
    private var bytesSinceTrim = 0
    private var flushScheduled = false
    /// A batch is written at the latest when it has this many answers waiting (a steady flood
    /// would otherwise keep the main loop from ever being idle).
    static let maxBatch = 64

    /// Answers `call` with `id` once `history` (and what else this main-loop pass recorded) is
    /// committed: one transaction for many calls, and nothing acknowledged that a crash could lose.
    private func commitThenAnswer(_ call: MethodCall, _ id: UInt32, _ history: HistoryEntry) {
        pending.history.append(history)
        pending.answers.append((call, id))
        scheduleFlush()
    }

    private func scheduleFlush() {
        if pending.answers.count >= Self.maxBatch { return flush() }
        guard !flushScheduled else { return }
        flushScheduled = true
        MainLoop.whenIdle { [weak self] in self?.flush() }
    }

    private func flush() {
        flushScheduled = false
        let batch = pending
        pending = Batch()
        do {
            try store.commit(history: batch.history, holds: batch.holds.map(\.hold))
        } catch {
            logger.error("cannot write \(batch.history.count) notification(s) to the state database (\(oneLine(error))); forwarding goes on, \(batch.holds.count) that were to be held are delivered instead")
            for (hold, fallback) in batch.holds {
                held[hold.item.id] = nil
                fallback()
            }
            if !batch.holds.isEmpty { stateChanged() }
        }
        for (call, id) in batch.answers { call.reply(.tuple([.uint32(id)])) }
        sinceTrim += batch.answers.count
        pump()
    }

    func close(_ call: MethodCall, id: UInt32) {
        senders.withIdentity(of: call.sender) { [self] process in
            let processKey = AppIdentity.resolve(NotificationRequest(), process: process).key
            let keys = [processKey] + senders.appKeys(of: call.sender)
            // Someone else's ID is treated as unknown: success, no effect.
            if ownsHeld(id, sender: call.sender, appKeys: keys), let item = held[id]?.item {
                releaseHeld([id])
                emit("NotificationClosed", to: item.sender, .tuple([.uint32(id), .uint32(3)]))
                recordClosed([(id, 3, clock.now)])
            } else if table.owned(id, sender: call.sender, appKeys: keys) != nil {
                queue.enqueue(id, .close, merge: ForwardWork.merge)
                pump()
            }
            call.reply()
        }
    }

    /// Turns silent mode on or off, durably.
    func setSilent(_ on: Bool) throws {
        try store.setSetting("silent", on ? "on" : "off")
        silent = on
        logger.info("silent mode \(on ? "on" : "off")")
        stateChanged()
    }

    // MARK: Held notifications

    private func ownsHeld(_ id: UInt32, sender: String, appKeys: [String]) -> Bool {
        guard id != 0, let entry = held[id], entry.digest == nil else { return false }
        let key = entry.item.app.lowercased()
        return entry.item.sender == sender || appKeys.contains { $0.lowercased() == key }
    }

    /// Forgets held notifications (delivered, replaced, closed or dismissed).
    private func releaseHeld(_ ids: [UInt32]) {
        let present = ids.filter { held[$0] != nil }
        guard !present.isEmpty else { return }
        // Not yet written? Then it must not be written at all.
        let gone = Set(present)
        pending.holds.removeAll { gone.contains($0.hold.item.id) }
        do { try store.removeHeld(present) } catch { logger.error("cannot update the held notifications: \(oneLine(error))") }
        for id in present { held[id] = nil }
        stateChanged()
    }

    /// A Focus ended: what it held goes out as `after-focus` says.
    func focusEnded(_ name: String) {
        let items = held.values.filter { $0.digest == nil && $0.item.reason == .focus(name) }.map(\.item)
        guard !items.isEmpty else { return }
        switch settings.general.afterFocus {
        case .digest:
            logger.info("\(name) ended: \(items.count) held notification(s) in a digest")
            send(Digest.afterFocus(name, items))
        case .replay:
            logger.info("\(name) ended: replaying \(items.count) held notification(s)")
            replay(items.sorted { ($0.received, $0.id) < ($1.received, $1.id) }.map(\.id))
        case .none:
            logger.info("\(name) ended: \(items.count) held notification(s) kept in history only")
            releaseHeld(items.map(\.id))
        }
    }

    /// Items held for a Focus that is no longer on (it ended while the bridge was stopped).
    func focusesEnded(besides active: String?) {
        let names = Set(held.values.compactMap { entry -> String? in
            guard entry.digest == nil, case .focus(let name) = entry.item.reason, name != active else { return nil }
            return name
        })
        for name in names.sorted() { focusEnded(name) }
    }

    /// Delivers the scheduled summary now; returns how many notifications it holds.
    @discardableResult
    func deliverSummary() -> Int {
        let items = waiting(.heldSummary)
        send(Digest.summary(of: items))
        return items.count
    }

    /// Sends a digest as the bridge's own notification, with Show All and Dismiss.
    private func send(_ digest: Digest?) {
        guard let digest else { return }
        let id = newID()
        do { try store.assignDigest(digest.items, digest: id) } catch {
            logger.error("cannot record the digest: \(error)")
        }
        for item in digest.items { held[item]?.digest = id }
        record(HistoryEntry(id: id, app: Self.ownAppName, summary: digest.title, body: digest.body, level: .active,
                            decision: .delivered, received: clock.now))
        let arguments = Variant.tuple([
            .string(Self.ownAppName), .uint32(0), .string("preferences-system-notifications"), .string(digest.title),
            .string(digest.body), .strings(digest.actions), .dictionary([]), .int32(-1),
        ])
        let notification = NotificationRequest(appName: Self.ownAppName, summary: digest.title, body: digest.body,
                                               actions: digest.actions)
        var context = policyContext()
        context.activeFocus = nil
        context.recent = DuplicateTracker()
        let decision = Policy.decide(notification, app: AppIdentity(key: Self.ownAppName, source: .appName), context: context)
        deliver(id, arguments: arguments, notification: notification, decision: decision, sender: bus.uniqueName,
                processID: UInt32(getpid()))
        stateChanged()
    }

    /// Sends held notifications as themselves, each to be answered to its own app.
    func replay(_ ids: [UInt32]) {
        replayBacklog.append(contentsOf: ids)
        feedReplays()
    }

    /// Held notifications waiting to be replayed, oldest first; they stay held (and durable)
    /// until they go into the forward queue.
    private var replayBacklog: [UInt32] = []
    private var replayStart = 0
    /// Replays go into the forward queue only while it is this short, so a Show All of a
    /// hundred thousand never overruns the queue's bound.
    static let replayQueueRoom = 512

    private func feedReplays() {
        guard replayStart < replayBacklog.count else { return }
        var context = policyContext()
        context.activeFocus = nil
        var released: [UInt32] = []
        while replayStart < replayBacklog.count && queue.queued < Self.replayQueueRoom {
            let id = replayBacklog[replayStart]
            replayStart += 1
            guard let item = held[id]?.item else { continue }
            released.append(id)
            guard let payload = try? store.heldPayload(id), let arguments = Variant(type: payload.type, bytes: payload.bytes),
                  arguments.typeString == "(susssasa{sv}i)" else {
                logger.error("the stored notification \(id) cannot be read; dropped")
                continue
            }
            let notification = NotificationsInterface.decode(arguments)
            let decision = Policy.decide(notification, app: AppIdentity(key: item.app, source: .appName), context: context)
            deliver(id, arguments: arguments, notification: notification, decision: decision, sender: item.sender,
                    processID: item.processID)
        }
        if replayStart == replayBacklog.count {
            replayBacklog = []
            replayStart = 0
        }
        releaseHeld(released)
    }

    private func digestAction(_ digestID: UInt32, key: String) {
        let items = held.values.filter { $0.digest == digestID }.map(\.item)
        switch key {
        case Digest.showAllKey:
            replay(Digest.ordered(items).reversed().map(\.id))
        default:
            releaseHeld(items.map(\.id))
        }
        if let daemonID = table[digestID]?.daemonID { downstream.close(daemonID: daemonID, bridgeID: digestID) }
    }

    /// Counts a notification over its app's rate limit in the app's "N more from App"
    /// notification, which replaces itself as the count grows.
    private func collapse(app: AppIdentity, arguments: Variant, latest: String) {
        let key = app.key.lowercased()
        var entry = collapses[key] ?? (id: newID(), count: 0)
        entry.count += 1
        collapses[key] = entry
        // The first right away, then at most a few updates a second: a flood must not become a
        // flood of updates to the daemon.
        let appName = arguments.child(0)
        let icon = arguments.child(2)
        if entry.count == 1 {
            showCollapse(app: app, appName: appName, icon: icon, latest: latest)
        } else if collapseTimers[key] == nil {
            collapseTimers[key] = MainLoop.after(milliseconds: Self.collapseUpdateMilliseconds) { [weak self] in
                self?.collapseTimers[key] = nil
                self?.showCollapse(app: app, appName: appName, icon: icon, latest: latest)
            }
        }
    }

    private var collapseTimers: [String: UInt32] = [:]
    static let collapseUpdateMilliseconds: UInt32 = 250

    private func showCollapse(app: AppIdentity, appName: Variant, icon: Variant, latest: String) {
        guard let entry = collapses[app.key.lowercased()] else { return }
        let title = "\(entry.count) more from \(app.key)"
        let request = NotificationRequest(appName: app.key, summary: title, body: latest,
                                          hints: [LevelResolver.levelHint: .string("passive")])
        let collapsed = Variant.tuple([appName, .uint32(0), icon, .string(title), .string(latest),
                                       .strings([]), .dictionary([]), .int32(-1)])
        var context = policyContext()
        context.activeFocus = nil
        context.recent = DuplicateTracker()
        let decision = Policy.decide(request, app: app, context: context)
        deliver(entry.id, arguments: collapsed, notification: request, decision: decision, sender: bus.uniqueName,
                processID: nil, counted: false)
    }

    // MARK: Forwarding

    private func newID() -> UInt32 {
        let allocation = ids.allocate()
        if let reserve = allocation.reserve { unsavedHighWater = reserve }
        if let mark = unsavedHighWater {
            // Until the mark is stored, a restart could hand these IDs out again: keep trying.
            do {
                try store.setIDHighWater(mark)
                unsavedHighWater = nil
            } catch {
                logger.error("cannot record the ID high-water mark: \(oneLine(error)); trying again with the next notification")
            }
        }
        return allocation.id
    }

    private func record(_ entry: HistoryEntry) {
        pending.history.append(entry)
        scheduleFlush()
    }

    /// Queues a notification for the daemon with the decided actions and presentation.
    private func deliver(_ id: UInt32, arguments: Variant, notification: NotificationRequest, decision: Decision,
                         sender: String, processID: UInt32?, counted: Bool = true) {
        if counted && notification.replacesID == 0 && decision.outcome != .coalesced {
            flood.delivered(decision.app.key, at: clock.now)
        }
        table.track(id, appKey: decision.app.key, sender: sender, actionKeys: decision.actions.originalKeys)
        recent.delivered(id, appKey: decision.app.key, summary: notification.summary, body: notification.body, at: clock.now)
        let presentation = decision.presentation
        let process = processID.map { ProcessIdentity(processID: $0) }
        let forwarded = ForwardedNotification(
            id: id, appKey: decision.app.key, level: decision.level,
            appName: arguments.child(0), appIcon: arguments.child(2),
            summary: presentation.summary.map(Variant.string) ?? arguments.child(3),
            body: presentation.body.map(Variant.string) ?? arguments.child(4),
            actions: .strings(decision.actions.flat),
            hints: HintEditor.forwardedHints(arguments.child(6), presentation: presentation, notification: notification,
                                             app: decision.app, process: process),
            expireTimeout: arguments.child(7))
        queue.enqueue(id, .notify(forwarded), merge: ForwardWork.merge)
        while queue.queued > Self.maxQueued || (queue.queuedWeight > Self.maxQueuedBytes && queue.queued > 1),
              let oldest = queue.dropOldest() {
            // Memory stays bounded while the daemon is away or slow: the oldest never shown is given up.
            logger.warning("more than \(Self.maxQueued) notifications or \(Self.maxQueuedBytes >> 20) MiB wait for the daemon; notification \(oldest.id) given up")
            notificationClosed(oldest.id, reason: 4)
        }
        pump()
    }

    /// Sends what may be sent now: in order, within the in-flight bound, only while the daemon is there.
    private func pump() {
        // Reply first, forward after: what was just accepted goes out once its callers are answered.
        guard !flushScheduled else { return }
        defer { trimAfterBurst() }
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

    /// After a burst, once everything is sent, gives the freed heap back to the system: malloc
    /// keeps it otherwise, and the bridge would stay as large as its largest flood.
    private func trimAfterBurst() {
        guard sinceTrim >= 1000 || bytesSinceTrim >= 64 << 20, queue.inFlight == 0, queue.queued == 0,
              !flushScheduled else { return }
        sinceTrim = 0
        bytesSinceTrim = 0
        MainLoop.whenIdle { Heap.trim() }
    }

    private func forwarded(_ job: ForwardQueue<ForwardWork>.Job, result: Result<UInt32, DBusError>) {
        switch result {
        case .success(let daemonID):
            queue.finish(job.id)
            delivered += 1
            if table[job.id] != nil { table.bind(job.id, daemonID: daemonID) }
            feedReplays()
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
        if entry.sender == bus.uniqueName {
            // One of the bridge's own: a digest dismisses what it still stood for; a "more from"
            // notification starts counting afresh.
            releaseHeld(held.values.filter { $0.digest == id }.map(\.item.id))
            collapses = collapses.filter { $0.value.id != id }
        } else {
            emit("NotificationClosed", to: entry.sender, .tuple([.uint32(id), .uint32(reason)]))
        }
        recordClosed([(id, reason, clock.now)])
    }

    private func recordClosed(_ closings: [(id: UInt32, reason: UInt32, at: Date)]) {
        do { try store.markClosed(closings) } catch { logger.error("cannot record closings: \(oneLine(error))") }
    }

    private func emit(_ signal: String, to destination: String, _ arguments: Variant) {
        guard destination != bus.uniqueName else { return }
        bus.emitSignal(destination: destination, path: NotificationsInterface.path,
                       interface: NotificationsInterface.name, name: signal, arguments)
    }
}

/// An error as one log line (SQLite's messages quote statements that span lines).
func oneLine(_ error: Error) -> String {
    String(describing: error).split(separator: "\n").map { String($0) }.joined(separator: " ")
}

extension Bridge: DownstreamEvents {
    func downstreamReady() {
        pump()
        stateChanged()
    }

    func downstreamGone() {
        let shown = table.forgetDaemon()
        // The bridge's own notifications vanished with the daemon: digests' items wait again.
        let ownIDs = Set(shown.filter { $0.sender == bus.uniqueName }.map(\.id))
        let orphans = held.values.filter { $0.digest.map(ownIDs.contains) == true }.map(\.item.id)
        if !orphans.isEmpty {
            try? store.assignDigest(orphans, digest: nil)
            for id in orphans { held[id]?.digest = nil }
        }
        collapses = collapses.filter { !ownIDs.contains($0.value.id) }
        stateChanged()
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
            if entry.sender == bus.uniqueName { return digestAction(id, key: key) }
            emit(signal.member, to: entry.sender, .tuple([.uint32(id), .string(entry.clientKey(for: key))]))
        case "ActivationToken", "NotificationReplied":
            guard arguments.child(1).isString else { return }
            emit(signal.member, to: entry.sender, .tuple([.uint32(id), arguments.child(1)]))
        default:
            break
        }
    }
}
