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
    /// State database writes that fail (full disk): logged once per streak, not per notification.
    private let storeFailures: FailureLog
    private static let recording = "recording notifications in the state database"
    private static let holding = "holding notifications in the state database"
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
        storeFailures = FailureLog(logger: logger)
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

    /// Who clients are told the daemon is: the daemon's own answer once it gave one.
    var serverInformation: ServerInformation { downstream.serverInformation ?? .bridge }

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
                      recent: recent, flood: flood, daemonButtonLimit: downstream.serverInformation?.buttonLimit)
    }

    // MARK: Calls from applications

    func notify(_ call: MethodCall) {
        senders.withSender(call.sender) { [self] sender in
            accept(call, caller: sender.caller(call.sender), process: sender.process)
        }
    }

    private func accept(_ call: MethodCall, caller: Caller, process: ProcessIdentity?) {
        let notification = NotificationsInterface.decode(call.parameters)
        bytesSinceTrim += call.parameters.byteCount
        let app = AppIdentity.resolve(notification, process: process)
        var decision = Policy.decide(notification, app: app, context: policyContext())
        let replacing = notification.replacesID
        let replacesShown = table.owned(replacing, by: caller) != nil
        let replacesHeld = ownsHeld(replacing, by: caller)
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
        if decision.outcome == .coalesced, let original = decision.replaces, table.owned(original, by: caller) == nil {
            // The same text from someone who may not act on the original is a notification of its own.
            decision.outcome = .delivered
            decision.replaces = nil
            decision.trace.append("delivery: delivered after all (notification \(original) is not this sender's to replace)")
        }
        // Whoever held the ID before keeps holding it: each gets its signals and its one close.
        var holders = [caller]
        let id: UInt32
        if let original = decision.replaces, table[original] != nil {
            id = original
        } else if replacesShown {
            id = replacing
        } else if replacesHeld, let earlier = held[replacing]?.item.holders {
            id = replacing
            holders = earlier.filter { $0.connection != caller.connection } + [caller]
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
                                        holders: holders, processID: process?.processID)
            held[id] = (item, nil)
            // Durable before the caller hears the ID: answered once the batch is committed.
            let hold = Store.Hold(item: item, payloadType: call.parameters.typeString, payload: call.parameters.bytes)
            pending.holds.append((hold, { [weak self] in
                // The store refused it: delivering is better than losing it.
                self?.deliver(id, arguments: call.parameters, notification: notification, decision: decision,
                              holders: holders, processID: process?.processID)
            }))
            commitThenAnswer(call, id, history)
            stateChanged()
        case .dropped:
            // Its fate is final at once: the app hears the ID, then that it was dismissed (the
            // person turned the app off), so a waiting sender is released.
            if replacesHeld { releaseHeld([id]) }
            commitThenAnswer(call, id, history)
            if !replacesShown { pending.closes.append((id, CloseReason.dismissed, holders)) }
        case .collapsed:
            // Alive, counted in the app's "N more" notification; it ends when that one does.
            commitThenAnswer(call, id, history)
            let group = collapseGroup(for: app)
            release(table.track(id, appKey: app.key, holder: caller, collapsedInto: group))
            collapse(app: app, arguments: call.parameters, latest: notification.summary)
        case .delivered, .coalesced:
            if replacesHeld { releaseHeld([id]) }
            commitThenAnswer(call, id, history)
            deliver(id, arguments: call.parameters, notification: notification, decision: decision,
                    holders: holders, processID: process?.processID)
        }
    }

    // MARK: Group commit

    /// What waits to be written, and the callers waiting for that write to hear their ID.
    private struct Batch {
        var history: [HistoryEntry] = []
        var holds: [(hold: Store.Hold, fallback: () -> Void)] = []
        var answers: [(call: MethodCall, id: UInt32)] = []
        /// IDs whose life ended as they were handed out (dropped): told once the IDs are.
        var closes: [(id: UInt32, reason: UInt32, holders: [Caller])] = []
        /// Ends to note in history: many in one transaction (a Dismiss may end thousands).
        var closings: [(id: UInt32, reason: UInt32, at: Date)] = []
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
            storeFailures.succeeded(Self.recording)
            storeFailures.succeeded(Self.holding)
        } catch {
            storeFailures.failed(Self.recording, "cannot write \(batch.history.count) notification(s) to the state database (\(oneLine(error))); forwarding goes on, \(batch.holds.count) that were to be held are delivered instead")
            if !batch.holds.isEmpty {
                storeFailures.failed(Self.holding, "\(batch.holds.count) notification(s) that were to be held cannot be stored, so they are delivered instead")
            }
            for (hold, fallback) in batch.holds {
                held[hold.item.id] = nil
                fallback()
            }
            if !batch.holds.isEmpty { stateChanged() }
        }
        recordClosed(batch.closings)
        for (call, id) in batch.answers { call.reply(.tuple([.uint32(id)])) }
        for close in batch.closes { ended(close.id, reason: close.reason, holders: close.holders) }
        sinceTrim += batch.answers.count
        pump()
    }

    func close(_ call: MethodCall, id: UInt32) {
        senders.withSender(call.sender) { [self] sender in
            let caller = sender.caller(call.sender)
            // Someone else's ID is treated as unknown: success, no effect.
            if ownsHeld(id, by: caller), let item = held[id]?.item {
                releaseHeld([id])
                ended(id, reason: CloseReason.closedByCall, holders: item.holders)
            } else if table.owned(id, by: caller) != nil {
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

    private func ownsHeld(_ id: UInt32, by caller: Caller) -> Bool {
        guard id != 0, let entry = held[id], entry.digest == nil else { return false }
        return entry.item.holders.contains(where: caller.mayActFor)
    }

    /// Forgets held notifications (delivered, replaced, closed or dismissed).
    private func releaseHeld(_ ids: [UInt32]) {
        let present = ids.filter { held[$0] != nil }
        guard !present.isEmpty else { return }
        // Not yet written? Then it must not be written at all.
        let gone = Set(present)
        pending.holds.removeAll { gone.contains($0.hold.item.id) }
        do { try store.removeHeld(present); storeFailures.succeeded("updating the held notifications") } catch {
            storeFailures.failed("updating the held notifications", "cannot update the held notifications in the state database: \(oneLine(error))")
        }
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
            // Never to be shown: dismissed, as the person chose.
            for item in items { ended(item.id, reason: CloseReason.dismissed, holders: item.holders) }
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
        deliver(id, arguments: arguments, notification: notification, decision: decision, holders: [ownCaller],
                processID: UInt32(getpid()))
        stateChanged()
    }

    /// The bridge itself, as the holder of its own notifications (digests, "N more").
    private var ownCaller: Caller { Caller(connection: bus.uniqueName, userID: getuid()) }

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

    /// Held notifications a Show All is replaying: their digest closing does not end them.
    private var replaying: Set<UInt32> = []

    private func feedReplays() {
        guard replayStart < replayBacklog.count else { return }
        var context = policyContext()
        context.activeFocus = nil
        var released: [UInt32] = []
        while replayStart < replayBacklog.count && queue.queued < Self.replayQueueRoom {
            let id = replayBacklog[replayStart]
            replayStart += 1
            replaying.remove(id)
            guard let item = held[id]?.item else { continue }
            released.append(id)
            guard let payload = try? store.heldPayload(id), let arguments = Variant(type: payload.type, bytes: payload.bytes),
                  arguments.typeString == "(susssasa{sv}i)" else {
                logger.error("the stored notification \(id) cannot be read; dropped")
                ended(id, reason: CloseReason.undefined, holders: item.holders)
                continue
            }
            let notification = NotificationsInterface.decode(arguments)
            let decision = Policy.decide(notification, app: AppIdentity(key: item.app, source: .appName), context: context)
            deliver(id, arguments: arguments, notification: notification, decision: decision, holders: item.holders,
                    processID: item.processID)
        }
        if replayStart == replayBacklog.count {
            replayBacklog = []
            replayStart = 0
        }
        releaseHeld(released)
    }

    private func digestAction(_ digestID: UInt32, key: String) {
        let items = held.values.filter { $0.digest == digestID && !replaying.contains($0.item.id) }.map(\.item)
        switch key {
        case Digest.showAllKey:
            let ids = Digest.ordered(items).reversed().map(\.id)
            replaying.formUnion(ids)
            replay(ids)
        default:
            // Dismiss: what the digest stood for is dismissed by the person, each ID told so.
            releaseHeld(items.map(\.id))
            for item in items { ended(item.id, reason: CloseReason.dismissed, holders: item.holders) }
        }
        if let daemonID = table[digestID]?.daemonID { downstream.close(daemonID: daemonID, bridgeID: digestID) }
    }

    /// Counts a notification over its app's rate limit in the app's "N more from App"
    /// notification, which replaces itself as the count grows.
    private func collapse(app: AppIdentity, arguments: Variant, latest: String) {
        let key = app.key.lowercased()
        guard var entry = collapses[key] else { return }
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

    /// The ID of the app's "N more" notification, made on its first collapsed notification.
    private func collapseGroup(for app: AppIdentity) -> UInt32 {
        let key = app.key.lowercased()
        if let entry = collapses[key] { return entry.id }
        let id = newID()
        if collapses.count >= Self.maxCollapses, let oldest = collapses.min(by: { $0.value.id < $1.value.id }) {
            // Bounded whatever app names arrive: the oldest app starts a new "more from" next time;
            // what its old one counted still ends with it (the table knows).
            collapses[oldest.key] = nil
        }
        collapses[key] = (id: id, count: 0)
        return id
    }

    private var collapseTimers: [String: UInt32] = [:]
    /// How many apps may have a "more from" notification counting at once.
    static let maxCollapses = 1024
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
        deliver(entry.id, arguments: collapsed, notification: request, decision: decision, holders: [ownCaller],
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
                storeFailures.succeeded("recording the ID high-water mark")
            } catch {
                storeFailures.failed("recording the ID high-water mark", "cannot record the ID high-water mark in the state database: \(oneLine(error)); trying again with the next notification")
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
                         holders: [Caller], processID: UInt32?, counted: Bool = true) {
        if counted && notification.replacesID == 0 && decision.outcome != .coalesced {
            flood.delivered(decision.app.key, at: clock.now)
        }
        release(table.track(id, appKey: decision.app.key, holders: holders, actionKeys: decision.actions.originalKeys))
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
                    // Never shown (or collapsed): close it here.
                    notificationClosed(job.id, reason: CloseReason.closedByCall)
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

    /// Tells every holder that its notification closed, and forgets it.
    private func notificationClosed(_ id: UInt32, reason: UInt32) {
        recent.closed(id)
        guard let entry = table.remove(id) else { return }
        if entry.connections.contains(bus.uniqueName) {
            // One of the bridge's own: what a digest still stood for, and what a "more from"
            // notification counted, end with it, for the same reason.
            endMembers(of: id, reason: reason)
        }
        ended(id, reason: reason, holders: entry.holders)
    }

    /// Ends what the bridge's own notification `id` stood for: the held notifications of a
    /// digest (but those a Show All is replaying) and the notifications a "more from" counted.
    private func endMembers(of id: UInt32, reason: UInt32) {
        let items = held.values.filter { $0.digest == id && !replaying.contains($0.item.id) }.map(\.item)
        releaseHeld(items.map(\.id))
        for item in items { ended(item.id, reason: reason, holders: item.holders) }
        collapses = collapses.filter { $0.value.id != id }
        for member in table.collapsed(into: id) {
            table.remove(member.id)
            ended(member.id, reason: reason, holders: member.holders)
        }
    }

    /// The one end of an ID's life: `NotificationClosed` to each holder, noted in history.
    private func ended(_ id: UInt32, reason: UInt32, holders: [Caller]) {
        for holder in holders {
            emit("NotificationClosed", to: holder.connection, .tuple([.uint32(id), .uint32(reason)]))
        }
        pending.closings.append((id, reason, clock.now))
        scheduleFlush()
    }

    /// Tells the holders the table gave up (it stays bounded) that their notifications ended.
    private func release(_ released: [NotificationTable.Release]) {
        for item in released { ended(item.id, reason: CloseReason.undefined, holders: item.holders) }
    }

    private func recordClosed(_ closings: [(id: UInt32, reason: UInt32, at: Date)]) {
        do { try store.markClosed(closings); storeFailures.succeeded("recording closings") } catch {
            storeFailures.failed("recording closings", "cannot record closings in the state database: \(oneLine(error))")
        }
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
        // The bridge's own notifications vanished with the daemon: digests' items wait again;
        // what a "more from" notification counted ends with it.
        let ownIDs = Set(shown.filter { $0.connections.contains(bus.uniqueName) }.map(\.id))
        let orphans = held.values.filter { $0.digest.map(ownIDs.contains) == true }.map(\.item.id)
        if !orphans.isEmpty {
            try? store.assignDigest(orphans, digest: nil)
            for id in orphans { held[id]?.digest = nil }
        }
        for id in ownIDs.sorted() { endMembers(of: id, reason: CloseReason.undefined) }
        stateChanged()
        guard !shown.isEmpty else { return }
        logger.warning("the daemon went away; \(shown.count) notification(s) it showed are reported closed")
        for entry in shown {
            recent.closed(entry.id)
            ended(entry.id, reason: CloseReason.undefined, holders: entry.holders)
        }
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
            if entry.connections.contains(bus.uniqueName) { return digestAction(id, key: key) }
            for connection in entry.connections {
                emit(signal.member, to: connection, .tuple([.uint32(id), .string(entry.clientKey(for: key))]))
            }
        case "ActivationToken", "NotificationReplied":
            guard arguments.child(1).isString else { return }
            for connection in entry.connections { emit(signal.member, to: connection, .tuple([.uint32(id), arguments.child(1)])) }
        default:
            break
        }
    }
}
