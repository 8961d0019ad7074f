import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeLoop
import FocusBridgeStore
import FocusBridgeTime
import Logging

/// Keeps the Focus state and the scheduled summary on time: evaluates the schedules and the
/// manual change, arms one wall-clock timer for the next boundary (no polling), tells the bridge
/// when a Focus ends, and delivers summaries — also those missed while asleep or stopped.
final class FocusController {
    private let bridge: Bridge
    private let store: Store
    private let logger: Logger
    private let clock: Clock
    let timeZone: TimeZoneRules
    private(set) var manual: ManualFocus?
    /// The Focus the windows turn on (`while-fullscreen`, `while-focused`), from `windows`.
    private var trigger = WindowTrigger()
    private var windows = WindowState()
    private var timer: WallClockTimer?
    private var started = false
    /// When history was last pruned to `history-days` (nil: not yet in this run).
    private var historyPruned: Instant?
    /// Called after every change of the Focus.
    var changed: () -> Void = {}

    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// A value that is no number of seconds at all (NaN, infinity): the arguments are invalid.
    struct NotANumber: Error, CustomStringConvertible {
        let description: String
    }

    init(bridge: Bridge, store: Store, clock: Clock = SystemClock(), timeZone: TimeZoneRules = SystemTimeZone.current(), logger: Logger) {
        self.bridge = bridge
        self.store = store
        self.clock = clock
        self.timeZone = timeZone
        self.logger = logger
        manual = Self.storedManual(store, logger: logger)
    }

    /// The manual Focus kept in the store. A value that cannot be decoded or whose times are out
    /// of bounds is logged in one line and discarded (it must not stop the next start).
    private static func storedManual(_ store: Store, logger: Logger) -> ManualFocus? {
        let text: String?
        do { text = try store.setting(.manualFocus) } catch {
            logger.warning("cannot read the stored manual Focus (\(error)); it is discarded")
            return nil
        }
        guard let text, text != "null" else { return nil }
        guard let manual = try? JSONText.decode(ManualFocus.self, from: text), manual.isPlausible else {
            logger.warning("the stored manual Focus is not valid (\(text.prefix(200).escapingControlCharacters)); it is discarded")
            try? store.setSetting(.manualFocus, "null")
            return nil
        }
        return manual
    }

    private var engine: FocusEngine { FocusEngine(focuses: bridge.settings.profiles, timeZone: timeZone) }
    private var summary: SummarySchedule { SummarySchedule(times: bridge.settings.summaryTimes, timeZone: timeZone) }

    var active: ActiveFocus? { bridge.activeFocus }
    var nextSummary: Instant? { summary.next(after: clock.now) }

    func start() {
        timer = WallClockTimer { [weak self] in self?.evaluate() }
        evaluate()
        started = true
    }

    /// Brings everything up to the present: the Focus, due summaries, the next timer.
    func evaluate() {
        let now = clock.now
        if let manual, !manual.isInEffect(at: now) { setManual(nil) }
        // A change of what the windows ask for is the next change a manual one lasts until.
        if trigger.update(windows, focuses: bridge.settings.profiles, at: now), manual != nil { setManual(nil) }
        let previous = bridge.activeFocus
        let current = engine.active(at: now, manual: manual, window: trigger.on, inhibited: bridge.inhibitions.summary,
                                    lockedSince: bridge.settings.general.whileLocked == .hold ? lockedSince : nil)
        bridge.activeFocus = current
        if previous?.name != current?.name {
            if let current {
                let until = current.until.map { " until \(Fate.localTime($0, now: Instant()))" } ?? ""
                logger.info("Focus \(current.name) on (\((current.reason ?? current.source.rawValue).escapingControlCharacters))\(until)")
            } else if let previous {
                logger.info("Focus \(previous.name) off")
            }
            if let previous { bridge.focusEnded(previous.name, away: previous.source == .locked) }
        }
        if !started {
            bridge.focusesEnded(besides: current?.name)
            // Snoozes kept from before: those due now are shown, the others wait for their time.
            bridge.snoozesEnded()
        }
        if previous != current { changed() }
        catchUpSummaries(now: now)
        pruneHistory(now: now)
        let next = [engine.nextChange(after: now, manual: manual), summary.next(after: now), trigger.nextChange,
                    historyPruned.map(retention.deadline(after:))].compactMap { $0 }.min()
        timer?.schedule(atSecondsSince1970: next?.timeIntervalSince1970)
    }

    private var retention: HistoryRetention { HistoryRetention(days: bridge.settings.general.historyDays) }

    /// Forgets history older than `history-days`, at start and about daily (`HistoryRetention`),
    /// and keeps it within `history-max-mb` (`HistoryTrimmer`).
    private func pruneHistory(now: Instant) {
        guard retention.isDue(at: now, lastPruned: historyPruned) else { return }
        historyPruned = now
        do {
            let removed = try store.pruneHistory(before: retention.cutoff(at: now))
            if removed > 0 { logger.info("history: \(Count.of(removed, "notification")) older than \(Count.of(retention.days, "day")) forgotten") }
        } catch {
            logger.error("cannot prune the history: \(error)")
        }
        // Then within `history-max-mb`, and a file far over it compacted: a quiet moment.
        bridge.historyTrimmer.maintain()
    }

    /// Delivers one summary if any summary time passed since the last look (while running,
    /// asleep or stopped).
    private func catchUpSummaries(now: Instant) {
        let stored = (try? store.setting(.summaryChecked)) ?? nil
        let last = stored.flatMap(TimeBounds.storedInstant)
        if let stored, last == nil {
            logger.warning("the stored time of the last summary check is not valid (\(stored.prefix(100))); it is discarded")
        }
        defer { try? store.setSetting(.summaryChecked, String(now.timeIntervalSince1970)) }
        guard let last else { return }
        let due = summary.instants(after: last, through: now)
        guard !due.isEmpty else { return }
        let count = bridge.deliverSummary()
        logger.info("scheduled summary (\(Count.of(due.count, "time")) due): \(Count.of(count, "notification"))")
        // Reviews held back by a Focus come with the summary, as its digest does.
        bridge.deliverWaitingReviews(withSummary: true)
    }

    /// Since when the screen is locked (nil: unlocked).
    private var lockedSince: Instant?

    /// The screen locked or unlocked.
    func screenLockChanged(_ locked: Bool) {
        guard locked != (lockedSince != nil) else { return }
        lockedSince = locked ? clock.now : nil
        evaluate()
    }

    /// An app asked for quiet, or the last one that did is done. A new request is what the
    /// person does now: it ends an earlier `focus off` (a Focus turned on by hand still wins).
    func inhibitionChanged(started: Bool) {
        if started, case .off = manual?.state { setManual(nil) }
        evaluate()
    }

    /// The window watcher saw another window in front, or a fullscreen one come or go.
    func windowsChanged(_ state: WindowState) {
        windows = state
        evaluate()
    }

    // MARK: Manual control

    /// `focusctl focus on NAME [--for D] [--until T]`. The Focus on afterwards: nil when the
    /// change has already ended (a duration of a microsecond, an `--until` reached meanwhile),
    /// which the answer then says.
    func turnOn(_ name: String, duration: Double?, until: String?) throws -> ActiveFocus? {
        guard let focus = bridge.settings.focus(named: name) else {
            throw Refused(description: FocusProfile.unknownSentence(name, known: bridge.settings.profiles))
        }
        if let duration, !duration.isFinite {
            throw NotANumber(description: Self.finiteSentence)
        }
        if let duration, !TimeBounds.isAcceptableDuration(duration) {
            throw Refused(description: Self.durationSentence)
        }
        var end: Instant?
        if let until {
            guard let date = DurationText.nextTime(until, after: clock.now, timeZone: timeZone) else {
                throw Refused(description: "--until takes a time of day as HH:MM, not \"\(until)\".")
            }
            end = date
        }
        let change = engine.manualChange(.on(focus.name), at: clock.now, duration: duration, until: end)
        setManual(change)
        evaluate()
        changedByHand(change, end != nil || duration != nil)
        return bridge.activeFocus
    }

    static let durationSentence = "a Focus can be turned on for more than 0 seconds and at most 366 days."
    static let finiteSentence = "the duration of a Focus is a finite number of seconds (more than 0, at most 366 days), not NaN or infinity."

    /// `focusctl focus off`.
    func turnOff() {
        let change = engine.manualChange(.off, at: clock.now)
        setManual(change)
        evaluate()
        changedByHand(change, false)
    }

    /// Called after a manual change made here (not one taken from another device), and whether
    /// the person gave its end (`[share]` writes it to this device's file).
    var changedByHand: (ManualFocus, _ endGiven: Bool) -> Void = { _, _ in }

    /// Applies another device's manual change (`[share]`): it lasts to its own end, or else to
    /// the next boundary of this device's schedules. False when it turns on a Focus this
    /// device does not have (nothing changes).
    func applyShared(_ change: SharedApply) -> Bool {
        var state = ManualFocus.State.off
        if let name = change.focus {
            guard let focus = bridge.settings.focus(named: name) else { return false }
            state = .on(focus.name)
        }
        var manual = engine.manualChange(state, at: change.since, until: change.until)
        manual.device = change.device
        setManual(manual)
        evaluate()
        return true
    }

    private func setManual(_ change: ManualFocus?) {
        manual = change
        do {
            if let change {
                try store.setSetting(.manualFocus, JSONWriter.write(try JSONValueEncoder().encode(change)))
            } else {
                try store.setSetting(.manualFocus, "null")
            }
        } catch {
            logger.error("cannot record the manual Focus: \(error)")
        }
    }
}
