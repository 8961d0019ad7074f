import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import FocusBridgeStore
import FocusBridgeTime
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// The bridge: takes each notification a door decoded, has the `Intake` plan it and carries the
/// plan out (`execute`): recorded and answered at once (`GroupCommit`), then forwarded
/// (`Forwarder`) or held durably. Every later event of an ID's life is a transition of the
/// `ledger` (`NotificationLedger`), whose effects the bridge carries out (`perform`,
/// `Bridge+Effects.swift`): it decides nothing itself. docs/ARCHITECTURE.md walks one
/// notification through these.
final class Bridge {
    static let ownAppName = OwnNotification.appName

    /// The session bus for the cold paths (`VariantConnection`): who callers are, badges.
    let bus: VariantConnection
    /// The connection that owns `org.freedesktop.Notifications` (sd-bus): the signals to apps.
    let notificationBus: MessageConnection
    let senders: SenderDirectory
    /// The installed desktop files, for the GTK door's app IDs.
    let desktopFiles = DesktopEntries()
    let store: Store
    let logger: Logger
    let clock: Clock
    private let ids: IDSource
    let commit: GroupCommit
    /// Keeps the history within `history-max-mb`, after commits.
    let historyTrimmer: HistoryTrimmer
    /// The one owner of each ID's life: what is shown, collapsed and held, and the replays.
    var ledger: NotificationLedger
    let failures: FailureLog
    /// The person's choices per app and the mutes.
    let preferences: AppPreferences
    let forwarder: Forwarder<DaemonTarget>
    /// Forwarding to GNOME Shell's GTK interface, where the GTK door's notifications are shown
    /// (nil: the bridge does not serve that door).
    var gtkForwarder: Forwarder<GtkShell>?
    /// Apps asking for quiet (`Inhibit`).
    let inhibitions = Inhibitions()
    /// Waits for the first snooze to end (`Bridge+Snooze.swift`); made at the first snooze.
    var snoozeTimer: WallClockTimer?
    let collapses = FloodCollapse()
    let signals: NotificationSignals
    /// Unread counts for docks (`Badges.swift`).
    let badges: Badges
    /// What was delivered recently (duplicates) and per-app rate limits (their "N more from App"
    /// notifications are `collapses`): every decision reads them in place.
    let tables: DeliveryTables
    private(set) var received = 0
    /// The policy part of the configuration (replaced on reload).
    var settings: PolicySettings {
        didSet {
            badges.settingsChanged(settings)
            tables.limit(settings.general.rateLimit, window: Double(settings.general.rateLimitSeconds))
            historyTrimmer.size = HistorySize(megabytes: settings.general.historyMaxMB)
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

    init(bus: VariantConnection, notificationBus: MessageConnection, downstream: Downstream, store: Store,
         settings: PolicySettings, clock: Clock = SystemClock(), logger: Logger) throws {
        self.bus = bus
        self.notificationBus = notificationBus
        self.settings = settings
        tables = DeliveryTables(flood: FloodGate(limit: settings.general.rateLimit,
                                                 window: Double(settings.general.rateLimitSeconds)))
        silent = try store.setting(.silent) == "on"
        self.store = store
        self.clock = clock
        self.logger = logger
        let failures = FailureLog(logger: logger)
        senders = SenderDirectory(bus: bus)
        ids = try IDSource(store: store, failures: failures)
        commit = GroupCommit(store: store, failures: failures, info: { [logger] in logger.info("\($0)") })
        historyTrimmer = HistoryTrimmer(store: store, failures: failures, logger: logger, clock: clock)
        historyTrimmer.size = HistorySize(megabytes: settings.general.historyMaxMB)
        self.failures = failures
        // A digest sent before a restart is out of reach now: what it stood for waits again.
        let restored = try store.heldNotifications()
        try store.assignDigest(restored.filter { $0.digest != nil }.map(\.item.id), digest: nil)
        ledger = NotificationLedger(ownConnection: notificationBus.uniqueName, held: restored.map(\.item))
        if !restored.isEmpty { logger.info("\(Count.of(restored.count, "notification")) still held from before") }
        preferences = AppPreferences(store: store, clock: clock, logger: logger)
        forwarder = Forwarder(downstream: downstream, logger: logger)
        signals = NotificationSignals(bus: notificationBus)
        badges = Badges(bus: bus, senders: senders, settings: settings, logger: logger)
        connect()
        downstream.events = self
    }

    private func connect() {
        forwarder.events = self
        inhibitions.ended = { [weak self] inhibition in
            guard let self, let daemonCookie = inhibitions.daemonCookies.removeValue(forKey: inhibition.cookie) else { return }
            downstream.uninhibit(daemonCookie: daemonCookie)
        }
        // Reply first, forward after: nothing goes to the daemon while callers wait for their IDs
        // (`mayForward`); each commit, once its callers are answered, forwards what waits.
        commit.committed = { [weak self] ends, answered in
            guard let self else { return }
            for end in ends { perform(ledger.transition(.endedAtOnce(end.id, end.reason, holders: end.holders), now: clock.now)) }
            forwarder.handled(answered)
            forwarder.pump()
            gtkForwarder?.pumpIfWaiting()
            historyTrimmer.afterCommit()
        }
        commit.stateChanged = { [weak self] in self?.stateChanged() }
        commit.holdsWritten = { [weak self] ids in
            guard let self else { return }
            perform(ledger.transition(.written(ids), now: clock.now))
        }
        preferences.changed = { [weak self] in self?.stateChanged() }
        collapses.show = { [weak self] id, app, arguments in
            guard let self else { return }
            let shown = OwnNotification.shown(.moreFrom, arguments.request, app: app, context: policyContext())
            deliver(id, .fdo(arguments), shown, holders: [ownCaller], processID: nil, counts: false)
        }
    }

    var downstream: Downstream { forwarder.downstream }
    /// What clients are told the daemon can do.
    var capabilities: [String] { downstream.capabilities ?? ["actions", "body"] }
    /// Who clients are told the daemon is: the daemon's own answer once it gave one.
    var serverInformation: ServerInformation { downstream.serverInformation ?? .bridge }
    var delivered: Int { forwarder.delivered + (gtkForwarder?.delivered ?? 0) }
    var queuedCount: Int { forwarder.queued + (gtkForwarder?.queued ?? 0) }
    var inFlightCount: Int { forwarder.inFlight + (gtkForwarder?.inFlight ?? 0) }
    func waiting(_ kind: DeliveryOutcome) -> [HeldNotification] { ledger.held.waiting(kind) }
    /// How many wait of `kind` (what status and the tray show), without listing them.
    func heldCount(_ kind: DeliveryOutcome) -> Int { ledger.held.waitingCount(kind) }
    /// How many are snoozed now.
    var snoozedCount: Int { ledger.held.snoozedCount }

    /// The live state a decision depends on.
    func policyContext() -> PolicyContext {
        // The daemon's answer read once: each read copies its texts.
        let daemon = downstream.serverInformation
        return PolicyContext(settings: settings, now: clock.now, silent: silent, screenLocked: screenLocked,
                             capabilities: capabilities, activeFocus: activeFocus.flatMap { settings.focus(named: $0.name) },
                             tables: tables, daemonButtonLimit: daemon?.buttonLimit,
                             choices: preferences.choices, mutes: preferences.mutes,
                             clickRunsSoleAction: daemon?.clickRunsSoleAction ?? false,
                             focusedWindow: windows.focused)
    }

    /// The bridge itself, as the holder of its own notifications (digests, "N more").
    var ownCaller: Caller { Caller(connection: ownName, userID: getuid()) }
    /// The bridge's connection as the holder of its own notifications.
    var ownName: String { notificationBus.uniqueName }

    // MARK: Calls from applications

    /// A notification the fdo door decoded, from `call`'s sender: who sends it is looked up
    /// (once per connection), then it is planned and the plan carried out.
    func notify(_ call: IncomingCall, _ arguments: NotifyArguments) {
        senders.withSender(call.sender) { [self] sender in
            let process = sender.process
            let arguments = DoorArguments.fdo(arguments)
            execute(plan(arguments, caller: sender.caller(call.sender), process: process), arguments,
                    processID: process?.processID, waiter: call)
        }
    }

    /// The intake's plan for `arguments` with the live state, its app resolved from them.
    func plan(_ arguments: DoorArguments, caller: Caller, process: ProcessIdentity?) -> Intake {
        let notification = arguments.request
        return plan(notification, app: AppIdentity.resolve(notification, process: process),
                    payloadBytes: arguments.byteCount, caller: caller, process: process)
    }

    /// The intake's plan for `notification` from `app` with the live state.
    func plan(_ notification: NotificationRequest, app: AppIdentity, payloadBytes: Int, caller: Caller,
              process: ProcessIdentity?) -> Intake {
        var context = policyContext()
        context.senderProcessID = process?.processID
        return Intake.take(notification, app: app, caller: caller, payloadBytes: payloadBytes, context: context,
                           focusName: activeFocus?.name, table: ledger.shown, held: ledger.held.holders(of:),
                           snoozed: ledger.held.snoozedUntil, newID: ids.next)
    }

    /// Carries out `plan`: the history row (and a held item) with this commit, `waiter` answered
    /// after it, then the one step.
    func execute(_ plan: Intake, _ arguments: DoorArguments, processID: UInt32?, waiter: any IDWaiter) {
        let id = plan.number
        let decision = plan.decision
        forwarder.handled(0, bytes: arguments.byteCount)
        received += 1
        if plan.tooHeavyToHold {
            logger.warning("a notification of \(decision.app.key.escapingControlCharacters) weighs \(arguments.byteCount) bytes, more than a held one may (\(HeldNotification.maxPayloadBytes)); delivered now")
        }
        logger.debug("notification \(id): \(decision.trace.joined(separator: "; ").escapingControlCharacters)")
        // After its decision: a call counts toward repeated calls for the next one only.
        if let communication = decision.communication, communication.isCall { tables.called(communication.person, at: clock.now) }
        if plan.replacesHeld || plan.held != nil {
            // The held part, into the batch before the answer: the answer may write the batch at
            // once (the 64th waiting), and no caller hears an ID whose held notification is not
            // in that write. GVariant's serialised form is the state files' format.
            perform(ledger.transition(.received(plan, payload: plan.held == nil ? nil : arguments.payload), now: clock.now))
        }
        commit.answer(waiter, id: id, history: plan.history)

        switch plan.step {
        case .hold:
            badges.counted(id, app: decision.app, senders: plan.holders, processID: processID)
            stateChanged()
        case .drop(let endsAtOnce):
            // The app hears the ID, then that it closed, so a waiting sender is released.
            if endsAtOnce { commit.endAfterAnswers(id, reason: plan.dropReason, holders: plan.holders) }
        case .collapse:
            // Alive, counted in the app's "N more" notification; it ends when that one does.
            let group = collapses.group(for: decision.app, newID: ids.next)
            perform(ledger.transition(.collapsed(id, appKey: decision.app.key, holders: plan.holders, into: group), now: clock.now))
            badges.counted(id, app: decision.app, senders: plan.holders, processID: processID)
            collapses.count(decision.app, appName: arguments.appName, icon: arguments.appIcon, latest: arguments.summary)
        case .forward(let counts):
            deliver(id, arguments, plan.shown, holders: plan.holders, processID: processID, counts: counts,
                    duplicateKey: decision.duplicateKey)
            askAboutTimeSensitive(after: decision)
        }
    }

    func close(_ call: IncomingCall, id: UInt32) {
        senders.withSender(call.sender) { [self] sender in
            let caller = sender.caller(call.sender)
            // Someone else's ID is treated as unknown: success, no effect.
            perform(ledger.transition(.closedByApp(id, by: caller), now: clock.now))
            call.reply()
        }
    }

    /// A new inhibition of `connection`. One whose connection left before it was made (its
    /// `NameOwnerChanged` came first) ends at once.
    func inhibit(connection: String, desktopEntry: String, reason: String) -> UInt32? {
        guard let cookie = inhibitions.inhibit(connection: connection, desktopEntry: desktopEntry, reason: reason,
                                               at: clock.now) else { return nil }
        logger.info("\(desktopEntry.isEmpty ? connection : desktopEntry.escapingControlCharacters) asked for quiet (\(reason.escapingControlCharacters)); inhibition \(cookie)")
        bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                 .tuple([.string(connection)]), replyType: "(s)") { [weak self] result in
            if case .failure = result { self?.inhibitions.connectionLeft(connection) }
        }
        // plasmashell in name mode shows it in its own applet; ended there when it ends here.
        downstream.inhibit(desktopEntry: desktopEntry, reason: reason) { [weak self] daemonCookie in
            guard let self, let daemonCookie else { return }
            if inhibitions.active.contains(where: { $0.cookie == cookie }) {
                inhibitions.daemonCookies[cookie] = daemonCookie
            } else {
                downstream.uninhibit(daemonCookie: daemonCookie)
            }
        }
        return cookie
    }

    /// Turns silent mode on or off, durably.
    func setSilent(_ on: Bool) throws {
        try store.setSetting(.silent, on ? "on" : "off")
        silent = on
        logger.info("silent mode \(on ? "on" : "off")")
        stateChanged()
    }

    // MARK: To the daemon

    /// Sends a notification to the daemon as `shown` says, for `holders`; `duplicateKey` is the
    /// notification's, when its decision made it.
    func deliver(_ id: UInt32, _ arguments: DoorArguments, _ shown: Shown, holders newHolders: [Caller],
                 processID: UInt32?, counts: Bool, duplicateKey: DuplicateTracker.Key? = nil) {
        tables.delivered(id, appKey: shown.app.key, summary: arguments.summary, body: arguments.body, at: clock.now,
                         counts: counts, key: duplicateKey)
        perform(ledger.transition(.forwarded(id, appKey: shown.app.key, holders: newHolders, actionKeys: shown.actions.originalKeys),
                                  now: clock.now))
        noteDaemonQuiet(id)
        badges.counted(id, app: shown.app, senders: newHolders, processID: processID)
        switch arguments {
        case .fdo(let arguments):
            forwarder.send(arguments.forwarded(id: id, shown: shown, process: processID.map { ProcessIdentity(processID: $0) }))
        case .gtk(let arguments):
            guard let gtkForwarder else { return notificationClosed(id, reason: .undefined) }
            gtkForwarder.send(arguments.forwarded(id: id, shown: shown))
        }
    }

    func newID() -> UInt32 { ids.next() }

    /// Closes the daemon's copy of `id` now (a digest acted on).
    func closeOnDaemon(_ id: UInt32) { forwarder.closeNow(id) }

    func record(_ entry: HistoryEntry) { commit.record(entry) }
}

extension Bridge: ForwarderEvents {
    var mayForward: Bool { !commit.isPending }
    func isAlive(_ id: UInt32) -> Bool { ledger.shown.contains(id) }
    func givenUp(_ id: UInt32, reason: CloseReason) { notificationClosed(id, reason: reason) }
    func took() { feedReplays() }
    func trimming() { store.releaseMemory() }
    func logged(_ id: UInt32) { commit.noteFate(id, FateStep(.logged, at: clock.now)) }
}
