import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeLoop
import FocusBridgeStore
import FocusBridgeTime
import Logging

/// The weekly Time Sensitive review (focus-bridge(1), BEHAVIOUR) and `Review` on the control
/// interface (focusctl(1), REVIEW). One wall-clock timer for the next Monday 10:00 (no polling),
/// re-armed after each run and each reload; a review missed while asleep or stopped is run once
/// on waking or at start, as a missed summary is. History is counted as the report counts it
/// (`HistoryCount`, a slice per idle pass of the main loop), so a long history never holds up
/// the calls that come meanwhile; what is due (`TimeSensitiveReview.due`) goes to the
/// bridge (`Bridge.review`), which sends or keeps it waiting and remembers it.
final class ReviewController {
    /// Counts for `Review` calls at once; one more is refused until one is answered.
    static let maxCalls = 4

    private let bridge: Bridge
    private let store: Store
    private let clock: Clock
    private let timeZone: TimeZoneRules
    private let logger: Logger
    private var timer: WallClockTimer?
    /// `Review` calls being counted.
    private var calls = 0
    /// The scheduled review is being counted: its time is stored once it is done.
    private var scheduledRunning = false

    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    init(bridge: Bridge, store: Store, clock: Clock = SystemClock(), timeZone: TimeZoneRules, logger: Logger) {
        self.bridge = bridge
        self.store = store
        self.clock = clock
        self.timeZone = timeZone
        self.logger = logger
    }

    private var frequency: ReviewFrequency { bridge.settings.general.timeSensitiveReview }

    /// The next weekly review, nil when `off`.
    var next: Instant? {
        frequency == .off ? nil : TimeSensitiveReview.next(after: clock.now, timeZone: timeZone)
    }

    func start() {
        timer = WallClockTimer { [weak self] in self?.evaluate() }
        evaluate()
    }

    /// Runs the review if one of its times passed since the last look (while running, asleep or
    /// stopped; once, however many passed), then arms the timer for the next. Also after a
    /// reload: `off` disarms it. The first start only notes the time (nothing to catch up).
    func evaluate() {
        let now = clock.now
        defer { timer?.schedule(atSecondsSince1970: next?.timeIntervalSince1970) }
        guard !scheduledRunning else { return }
        let stored = (try? store.setting(.reviewChecked)) ?? nil
        let last = stored.flatMap(TimeBounds.storedInstant)
        if let stored, last == nil {
            logger.warning("the stored time of the last Time Sensitive review is not valid (\(stored.prefix(100).escapingControlCharacters)); it is discarded")
        }
        guard frequency == .weekly, let last,
              !TimeSensitiveReview.instants(after: last, through: now, timeZone: timeZone).isEmpty else {
            return checked(now)
        }
        scheduledRunning = true
        count(since: now.addingTimeInterval(-TimeSensitiveReview.periodSeconds), until: now) { [weak self] result in
            guard let self else { return }
            scheduledRunning = false
            checked(now)
            switch result {
            case .failure(let error):
                logger.error("the Time Sensitive review cannot read history: \(error)")
            case .success(let tally):
                let noted = bridge.review(due(tally, at: now))
                logger.info("Time Sensitive review: \(Count.of(noted.count, "app")) to ask about")
            }
        }
    }

    private func checked(_ date: Instant) {
        do { try store.setSetting(.reviewChecked, String(date.timeIntervalSince1970)) } catch {
            logger.error("cannot record the time of the Time Sensitive review: \(error)")
        }
    }

    /// `Review(deliver)`: counts the 7 days before now and answers what is due, delivered
    /// (`deliver`) or only listed.
    func review(_ call: VariantCall, deliver: Bool) throws {
        guard calls < Self.maxCalls else {
            throw Refused(description: "focus-bridge is counting \(Self.maxCalls) reviews already; ask again once one is answered")
        }
        calls += 1
        let now = clock.now
        let since = now.addingTimeInterval(-TimeSensitiveReview.periodSeconds)
        count(since: since, until: now) { [weak self] result in
            guard let self else { return }
            calls -= 1
            switch result {
            case .failure(let error):
                call.fail(DBusError(name: DBusError.failed, message: "cannot read history: \(error)"))
            case .success(let tally):
                let reviewed = bridge.preferences.reviews.recent(at: now).map(ReviewReport.App.init)
                let items = due(tally, at: now)
                let apps = deliver ? bridge.review(items).map(ReviewReport.App.init)
                    : items.map { ReviewReport.App($0, at: now) }
                let report = ReviewReport(frequency: frequency.rawValue, since: since, until: now, next: next,
                                          delivered: deliver, apps: apps, reviewed: reviewed)
                call.reply(.tuple([.string(JSONText.encode(report))]))
            }
        }
    }

    private func due(_ tally: ActivityTally, at now: Instant) -> [TimeSensitiveReview.Item] {
        let context = bridge.policyContext()
        return TimeSensitiveReview.due(tally.ordered, memory: bridge.preferences.reviews, at: now) {
            context.rule(forApp: $0).rule.timeSensitive
        }
    }

    private func count(since: Instant, until: Instant, done: @escaping (Result<ActivityTally, Error>) -> Void) {
        HistoryCount.count(ActivityTally(since: since, until: until, timeZone: timeZone), in: store, done: done)
    }
}
