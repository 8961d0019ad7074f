import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeLoop
import FocusBridgeStore
import FocusBridgeTime
import Logging

/// The person's run-time choices per app and the mutes (focusctl(1), APPS and MUTE): kept in
/// the store, read by every decision through `PolicyContext`, and a mute ended on time by one
/// wall-clock timer (no polling). A store that refuses a write keeps the change for this run
/// and says so in the log.
final class AppPreferences {
    private let store: Store
    private let clock: Clock
    private let logger: Logger
    private(set) var choices: AppChoices
    private(set) var mutes: MuteList
    /// The apps the Time Sensitive review asked about, or will once a Focus lets it.
    private(set) var reviews: ReviewMemory
    private var timer: WallClockTimer?
    /// The bridge's questions on screen (its notification ID → the app it asks about).
    private var questions: [UInt32: String] = [:]
    /// Called when a choice or a mute changed (what `focusctl status` shows).
    var changed: () -> Void = {}

    init(store: Store, clock: Clock, logger: Logger) {
        self.store = store
        self.clock = clock
        self.logger = logger
        do { choices = try store.appChoices() } catch {
            logger.warning("cannot read the stored app choices (\(error)); none apply")
            choices = AppChoices()
        }
        do { mutes = try store.mutes() } catch {
            logger.warning("cannot read the stored mutes (\(error)); none apply")
            mutes = MuteList()
        }
        reviews = Self.storedReviews(store, logger: logger)
    }

    /// The review's memory kept in the store; one that cannot be read is logged in one line and
    /// starts afresh (it must not stop the next start).
    private static func storedReviews(_ store: Store, logger: Logger) -> ReviewMemory {
        let text: String?
        do { text = try store.setting(.reviews) } catch {
            logger.warning("cannot read the stored Time Sensitive reviews (\(error)); none are remembered")
            return ReviewMemory()
        }
        guard let text else { return ReviewMemory() }
        guard let memory = try? JSONText.decode(ReviewMemory.self, from: text) else {
            logger.warning("the stored Time Sensitive reviews are not valid (\(text.prefix(200).escapingControlCharacters)); none are remembered")
            return ReviewMemory()
        }
        return memory
    }

    /// Arms the timer for the first mute to end (and forgets those over while stopped).
    func start() {
        timer = WallClockTimer { [weak self] in self?.expire() }
        expire()
    }

    func set(_ choice: AppChoice, for app: String) {
        let entry = AppChoices.Entry(app: app, choice: choice, made: clock.now)
        choices.set(entry)
        logger.info("\(app.escapingControlCharacters): \(choice.key.rawValue) \(choice.value) (a choice)")
        write("the choice for \(app)") { try store.saveChoice(entry) }
        changed()
    }

    @discardableResult
    func reset(app: String, key: AppChoice.Key?) -> [AppChoices.Entry] {
        let reset = choices.reset(app: app, key: key)
        guard !reset.isEmpty else { return [] }
        logger.info("\(app.escapingControlCharacters): \(reset.map(\.choice.key.rawValue).joined(separator: ", ")) back to the configuration")
        write("the reset for \(app)") { try store.resetChoices(app: app, key: key) }
        changed()
        return reset
    }

    func noteAsked(_ app: String, answer: String) {
        choices.noteAsked(app, answer: answer)
        write("the answer for \(app)") { try store.noteAsked(app: app, answer: answer, at: clock.now) }
    }

    /// Notes a review of `entry.app` (found due, waiting, or gone out), durably; what no longer
    /// matters is forgotten at the same time.
    func noteReview(_ entry: ReviewMemory.Entry) {
        reviews.note(entry)
        reviews.forget(at: clock.now)
        let text = JSONText.encode(reviews)
        write("the review of \(entry.app)") { try store.setSetting(.reviews, text) }
    }

    func asking(_ id: UInt32, about app: String) { questions[id] = app }
    func question(_ id: UInt32) -> String? { questions[id] }
    func questionEnded(_ id: UInt32) { questions[id] = nil }

    func mute(_ app: String, until: Instant) {
        mutes.mute(app, until: until)
        logger.info("\(app.escapingControlCharacters) muted until \(Fate.localTime(until, now: Instant()))")
        write("the mute of \(app)") { try store.saveMute(MuteList.Mute(app: app, until: until)) }
        timer?.schedule(atSecondsSince1970: mutes.nextEnd?.timeIntervalSince1970)
        changed()
    }

    @discardableResult
    func unmute(_ app: String) -> MuteList.Mute? {
        guard let mute = mutes.unmute(app) else { return nil }
        logger.info("\(mute.app.escapingControlCharacters) unmuted")
        write("the unmute of \(app)") { try store.removeMutes([app]) }
        timer?.schedule(atSecondsSince1970: mutes.nextEnd?.timeIntervalSince1970)
        changed()
        return mute
    }

    private func expire() {
        let over = mutes.expire(at: clock.now)
        if !over.isEmpty {
            for mute in over { logger.info("\(mute.app.escapingControlCharacters)'s mute ended") }
            write("the end of mutes") { try store.removeMutes(over.map(\.app)) }
            changed()
        }
        timer?.schedule(atSecondsSince1970: mutes.nextEnd?.timeIntervalSince1970)
    }

    private func write(_ what: String, _ body: () throws -> Void) {
        do { try body() } catch { logger.error("cannot store \(what) (\(error)); it holds until focus-bridge stops") }
    }
}
