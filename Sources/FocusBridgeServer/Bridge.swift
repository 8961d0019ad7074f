import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeStore
import FocusBridgeTime
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The bridge: takes each `Notify`, has the `Intake` decide it, records it and answers at once
/// (`GroupCommit`), then forwards it (`Forwarder`) or holds it durably (`HeldRegistry`); ends
/// every ID once and sends the daemon's signals back to the holders (`NotificationSignals`).
/// docs/ARCHITECTURE.md walks one notification through these.
final class Bridge {
    static let ownAppName = "FocusBridge"

    /// The session bus for the cold paths (`BusConnection`): who callers are, badges.
    let bus: BusConnection
    /// The connection that owns `org.freedesktop.Notifications` (sd-bus): the signals to apps.
    let notificationBus: SdBusConnection
    let senders: SenderDirectory
    let store: Store
    let logger: Logger
    let clock: Clock
    private let ids: IDSource
    let commit: GroupCommit
    let held: HeldRegistry
    /// The person's choices per app and the mutes.
    let preferences: AppPreferences
    let forwarder: Forwarder
    let collapses = FloodCollapse()
    let signals: NotificationSignals
    /// Unread counts for docks (`Badges.swift`).
    let badges: Badges
    var recent = DuplicateTracker()
    /// Per-app rate limits (their "N more from App" notifications are `collapses`).
    private var flood: FloodGate
    private(set) var received = 0
    /// The policy part of the configuration (replaced on reload).
    var settings: PolicySettings {
        didSet {
            badges.settingsChanged(settings)
            let general = settings.general
            if general.rateLimit != flood.limit || Double(general.rateLimitSeconds) != flood.window {
                flood = FloodGate(limit: general.rateLimit, window: Double(general.rateLimitSeconds))
            }
        }
    }
    /// Silent mode (the Ring/Silent switch), kept in the store across restarts.
    private(set) var silent: Bool
    /// Whether the screen is locked, for `previews = "when-unlocked"`.
    var screenLocked = false
    /// The window in front, as the `WindowWatch` last said.
    var windows = WindowState()
    /// The Focus that is on (kept up to date by the `FocusController`).
    var activeFocus: ActiveFocus?
    /// Called when something `focusctl status` shows has changed.
    var stateChanged: () -> Void = {}

    init(bus: BusConnection, notificationBus: SdBusConnection, downstream: Downstream, store: Store,
         settings: PolicySettings, clock: Clock = SystemClock(), logger: Logger) throws {
        self.bus = bus
        self.notificationBus = notificationBus
        self.settings = settings
        flood = FloodGate(limit: settings.general.rateLimit, window: Double(settings.general.rateLimitSeconds))
        silent = try store.setting("silent") == "on"
        self.store = store
        self.clock = clock
        self.logger = logger
        let failures = FailureLog(logger: logger)
        senders = SenderDirectory(bus: bus)
        ids = try IDSource(store: store, failures: failures)
        commit = GroupCommit(store: store, failures: failures)
        held = try HeldRegistry(store: store, commit: commit, failures: failures, logger: logger)
        preferences = AppPreferences(store: store, clock: clock, logger: logger)
        forwarder = Forwarder(downstream: downstream, logger: logger)
        signals = NotificationSignals(bus: notificationBus)
        badges = Badges(bus: bus, settings: settings, logger: logger)
        connect()
        downstream.events = self
    }

    private func connect() {
        // Reply first, forward after: nothing goes to the daemon while callers wait for their IDs;
        // each commit, once its callers are answered, forwards what waits.
        forwarder.mayForward = { [weak commit] in commit?.isPending == false }
        commit.committed = { [weak self] ends, answered in
            guard let self else { return }
            for end in ends { ended(end.id, reason: end.reason, holders: end.holders) }
            forwarder.handled(answered)
            forwarder.pump()
        }
        commit.holdsRefused = { [weak self] in self?.stateChanged() }
        held.changed = { [weak self] in self?.stateChanged() }
        preferences.changed = { [weak self] in self?.stateChanged() }
        forwarder.givenUp = { [weak self] id, reason in self?.notificationClosed(id, reason: reason) }
        forwarder.took = { [weak self] in self?.feedReplays() }
        forwarder.trimming = { [weak store] in store?.releaseMemory() }
        collapses.show = { [weak self] id, app, arguments, request in
            guard let self else { return }
            let shown = Policy.present(request, app: app, context: policyContext())
            deliver(id, arguments, request, shown, holders: [ownCaller], processID: nil, counts: false)
        }
    }

    var downstream: Downstream { forwarder.downstream }
    /// What clients are told the daemon can do.
    var capabilities: [String] { downstream.capabilities ?? ["actions", "body"] }
    /// Who clients are told the daemon is: the daemon's own answer once it gave one.
    var serverInformation: ServerInformation { downstream.serverInformation ?? .bridge }
    var delivered: Int { forwarder.delivered }
    var queuedCount: Int { forwarder.queued }
    var inFlightCount: Int { forwarder.inFlight }
    func waiting(_ kind: DeliveryOutcome) -> [HeldNotification] { held.waiting(kind) }

    /// The live state a decision depends on.
    func policyContext() -> PolicyContext {
        // The daemon's answer read once: each read copies its texts.
        let daemon = downstream.serverInformation
        return PolicyContext(settings: settings, now: clock.now, silent: silent, screenLocked: screenLocked,
                             capabilities: capabilities, activeFocus: activeFocus.flatMap { settings.focus(named: $0.name) },
                             recent: recent, flood: flood, daemonButtonLimit: daemon?.buttonLimit,
                             choices: preferences.choices, mutes: preferences.mutes,
                             clickRunsSoleAction: daemon?.clickRunsSoleAction ?? false,
                             focusedWindow: windows.focused)
    }

    /// The bridge itself, as the holder of its own notifications (digests, "N more").
    var ownCaller: Caller { Caller(connection: ownName, userID: getuid()) }
    /// The bridge's connection as the holder of its own notifications.
    var ownName: String { notificationBus.uniqueName }

    // MARK: Calls from applications

    func notify(_ call: IncomingCall, _ arguments: NotifyArguments) {
        senders.withSender(call.sender) { [self] sender in
            accept(call, arguments, caller: sender.caller(call.sender), process: sender.process)
        }
    }

    private func accept(_ call: IncomingCall, _ arguments: NotifyArguments, caller: Caller, process: ProcessIdentity?) {
        let notification = arguments.request
        forwarder.handled(0, bytes: arguments.byteCount)
        let app = AppIdentity.resolve(notification, process: process)
        let (intake, kept) = take(notification, app: app, caller: caller, process: process, payloadBytes: arguments.byteCount)
        let decision = intake.decision
        if intake.tooHeavyToHold {
            logger.warning("a notification of \(app.key) weighs \(arguments.byteCount) bytes, more than a held one may (\(HeldNotification.maxPayloadBytes)); delivered now")
        }
        let id = switch intake.id { case .new: ids.next(); case .existing(let id): id }
        let history = HistoryEntry(id: id, app: app.key, summary: notification.summary, body: notification.body,
                                   level: decision.level, decision: decision.outcome, received: clock.now,
                                   kept: kept)
        received += 1
        logger.debug("notification \(id): \(decision.trace.joined(separator: "; "))")
        if intake.releasesHeld { held.release([id]) }

        switch intake.step {
        case .hold(let reason):
            let item = HeldNotification(id: id, reason: reason, app: app.key, summary: notification.summary,
                                        body: notification.body, level: decision.level,
                                        relevance: HeldNotification.relevance(of: notification), received: clock.now,
                                        holders: intake.holders, processID: process?.processID)
            held.hold(item)
            badges.counted(id, app: app)
            // Durable before the caller hears the ID.
            let stored = arguments.all // GVariant's serialised form, as the store has always kept it
            commit.hold(Store.Hold(item: item, payloadType: stored.typeString, payload: stored.bytes)) {
                [weak self] in
                // The store refused it: delivering is better than losing it.
                self?.held.forget(id)
                self?.deliver(id, arguments, notification, decision.shown, holders: intake.holders,
                              processID: process?.processID, counts: notification.replacesID == 0)
            }
            commit.answer(call, id: id, history: history)
            stateChanged()
        case .drop(let endsAtOnce):
            // The app hears the ID, then that it was dismissed, so a waiting sender is released.
            commit.answer(call, id: id, history: history)
            // From the app in front: expired, as a notification the person saw in the app.
            let reason: CloseReason = decision.outcome == .foreground ? .expired : .dismissed
            if endsAtOnce { commit.endAfterAnswers(id, reason: reason, holders: intake.holders) }
        case .collapse:
            // Alive, counted in the app's "N more" notification; it ends when that one does.
            commit.answer(call, id: id, history: history)
            let group = collapses.group(for: app, newID: ids.next)
            release(forwarder.track(id, appKey: app.key, holders: [caller], collapsedInto: group))
            badges.counted(id, app: app)
            collapses.count(app, arguments: arguments, latest: notification.summary)
        case .forward(let counts):
            commit.answer(call, id: id, history: history)
            deliver(id, arguments, notification, decision.shown, holders: intake.holders,
                    processID: process?.processID, counts: counts, duplicateKey: decision.duplicateKey)
            askAboutTimeSensitive(after: decision)
        }
    }

    /// The intake's verdict with the live state, and what history keeps of it. The context holds
    /// copies of `recent` and `flood`; it is gone when this returns, before `deliver` changes them
    /// — alive, it would make every Notify copy their tables (`make bench` found 0.8M instructions
    /// a Notify in that).
    private func take(_ notification: NotificationRequest, app: AppIdentity, caller: Caller, process: ProcessIdentity?,
                      payloadBytes: Int) -> (Intake, KeptRequest) {
        var context = policyContext()
        context.senderProcessID = process?.processID
        let intake = Intake.take(notification, app: app, caller: caller, payloadBytes: payloadBytes, context: context,
                                 focusName: activeFocus?.name, table: forwarder.table, held: held.holders(of:))
        return (intake, KeptRequest(notification, decision: intake.decision, context: context, focusName: activeFocus?.name))
    }

    func close(_ call: IncomingCall, id: UInt32) {
        senders.withSender(call.sender) { [self] sender in
            let caller = sender.caller(call.sender)
            // Someone else's ID is treated as unknown: success, no effect.
            if held.owns(id, by: caller), let item = held[id] {
                held.release([id])
                ended(id, reason: .closedByCall, holders: item.holders)
            } else if forwarder.table.owned(id, by: caller) != nil {
                forwarder.close(id)
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

    // MARK: To the daemon

    /// Sends a notification to the daemon as `shown` says, for `holders`; `duplicateKey` is the
    /// request's, when its decision made it.
    func deliver(_ id: UInt32, _ arguments: NotifyArguments, _ request: NotificationRequest, _ shown: Shown,
                 holders: [Caller], processID: UInt32?, counts: Bool, duplicateKey: DuplicateTracker.Key? = nil) {
        if counts { flood.delivered(shown.app.key, at: clock.now) }
        release(forwarder.track(id, appKey: shown.app.key, holders: holders, actionKeys: shown.actions.originalKeys))
        recent.delivered(id, appKey: shown.app.key, summary: request.summary, body: request.body, at: clock.now,
                         key: duplicateKey)
        noteDaemonQuiet(id)
        badges.counted(id, app: shown.app)
        forwarder.send(arguments.forwarded(id: id, request: request, shown: shown,
                                           process: processID.map { ProcessIdentity(processID: $0) }))
    }

    func newID() -> UInt32 { ids.next() }

    /// Closes the daemon's copy of `id` now (a digest acted on).
    func closeOnDaemon(_ id: UInt32) { forwarder.closeNow(id) }

    func record(_ entry: HistoryEntry) { commit.record(entry) }
}
