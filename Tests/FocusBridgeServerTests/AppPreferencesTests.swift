import FocusBridgeCore
import FocusBridgeTime
import FocusBridgeDBus
@testable import FocusBridgeServer
import FocusBridgeStore
import FocusBridgeTestSupport
import XCTest

/// `AppPreferences` on a real state database: the person's choices and mutes survive a restart
/// (new preferences on the same store), and a mute ends on time.
final class AppPreferencesTests: XCTestCase {
    private let logs = LogRecorder()

    /// A clock the test sets.
    final class TestClock: Clock, @unchecked Sendable {
        var now: Instant
        init(_ now: Instant) { self.now = now }
    }

    private let start = Instant(timeIntervalSince1970: 1_800_000_000)

    func testChoicesAndTheirResetSurviveARestart() throws {
        let store = try temporaryStore()
        let clock = TestClock(start)
        let preferences = AppPreferences(store: store, clock: clock, logger: logs.logger)
        var changes = 0
        preferences.changed = { changes += 1 }

        preferences.set(.delivery(.off), for: "Mail")
        preferences.set(.timeSensitive(false), for: "Mail")
        preferences.set(.marketing(true), for: "Chat")
        XCTAssertEqual(changes, 3)
        XCTAssertEqual(preferences.choices.choice(.delivery, for: "mail")?.choice, .delivery(.off), "by app, whatever the case")

        let restarted = AppPreferences(store: store, clock: clock, logger: logs.logger)
        XCTAssertEqual(restarted.choices, preferences.choices)
        XCTAssertEqual(restarted.choices.choice(.delivery, for: "Mail")?.made, start)

        XCTAssertEqual(restarted.reset(app: "Mail", key: .delivery).map(\.choice), [.delivery(.off)])
        XCTAssertEqual(restarted.reset(app: "Mail", key: .delivery), [], "nothing left to reset")
        let again = AppPreferences(store: store, clock: clock, logger: logs.logger)
        XCTAssertNil(again.choices.choice(.delivery, for: "Mail"))
        XCTAssertEqual(again.choices.choice(.timeSensitive, for: "Mail")?.choice, .timeSensitive(false))
        XCTAssertEqual(again.choices.choice(.marketing, for: "Chat")?.choice, .marketing(true))
    }

    func testAnAnswerToTheQuestionIsKept() throws {
        let store = try temporaryStore()
        let clock = TestClock(start)
        let preferences = AppPreferences(store: store, clock: clock, logger: logs.logger)
        preferences.noteAsked("Mail", answer: "pending")
        XCTAssertEqual(preferences.choices.pendingQuestions, ["Mail"])
        XCTAssertEqual(AppPreferences(store: store, clock: clock, logger: logs.logger).choices.wasAsked("mail"), "pending")

        preferences.asking(40, about: "Mail")
        XCTAssertEqual(preferences.question(40), "Mail")
        preferences.questionEnded(40)
        XCTAssertNil(preferences.question(40))
    }

    /// The Time Sensitive review's memory: kept across a restart, what is over forgotten, a
    /// stored value that cannot be read discarded with one warning.
    func testTheReviewsMemorySurvivesARestart() throws {
        let store = try temporaryStore()
        let clock = TestClock(start)
        let preferences = AppPreferences(store: store, clock: clock, logger: logs.logger)
        preferences.noteReview(.init(app: "Pager", at: start.addingTimeInterval(-8 * 86_400), sent: 3, acted: 0,
                                     state: .delivered))
        preferences.noteReview(.init(app: "Chat", at: start.addingTimeInterval(-8 * 86_400), sent: 4, acted: 1,
                                     state: .waiting))
        preferences.noteReview(.init(app: "Build", at: start, sent: 5, acted: 2, state: .delivered))
        let restarted = AppPreferences(store: store, clock: clock, logger: logs.logger)
        XCTAssertEqual(restarted.reviews.entries.map(\.app), ["Chat", "Build"], "a review from before the period is over")
        XCTAssertEqual(restarted.reviews.waiting.map(\.app), ["Chat"])
        XCTAssertTrue(restarted.reviews.wasReviewed("build", before: start))

        try store.setSetting(.reviews, "{not json")
        XCTAssertEqual(AppPreferences(store: store, clock: clock, logger: logs.logger).reviews, ReviewMemory())
        XCTAssertTrue(logs.lines.contains { $0.level == .warning && $0.message.hasPrefix("the stored Time Sensitive reviews are not valid") },
                      "\(logs.lines)")
    }

    func testMutesSurviveARestartAndThoseOverWhileStoppedAreForgotten() throws {
        let store = try temporaryStore()
        let clock = TestClock(start)
        let preferences = AppPreferences(store: store, clock: clock, logger: logs.logger)
        preferences.mute("Mail", until: start + 60)
        preferences.mute("Chat", until: start + 3600)
        XCTAssertEqual(preferences.mutes.mutedUntil("mail", at: start), start + 60)
        XCTAssertNotNil(preferences.unmute("Chat"))
        XCTAssertNil(preferences.unmute("Chat"), "unmuted once")
        preferences.mute("Chat", until: start + 3600)

        clock.now = start + 120
        let restarted = AppPreferences(store: store, clock: clock, logger: logs.logger)
        XCTAssertEqual(restarted.mutes.active(at: start).map(\.app), ["Mail", "Chat"], "both read back")
        var changes = 0
        restarted.changed = { changes += 1 }
        restarted.start()
        XCTAssertEqual(changes, 1)
        XCTAssertEqual(restarted.mutes.active(at: start).map(\.app), ["Chat"], "Mail's mute ended while stopped")
        XCTAssertEqual(try store.mutes().active(at: start).map(\.app), ["Chat"], "and is gone from the store")
    }

    /// The wall-clock timer ends a mute when it is due, with no polling.
    func testAMuteEndsOnTime() throws {
        let store = try temporaryStore()
        let preferences = AppPreferences(store: store, clock: SystemClock(), logger: logs.logger)
        preferences.start()
        var changes = 0
        preferences.changed = { changes += 1 }
        preferences.mute("Mail", until: Instant() + 0.2)
        XCTAssertEqual(changes, 1)
        waitOnMainLoop(until: { changes == 2 }, seconds: 5)
        XCTAssertNil(preferences.mutes.mutedUntil("Mail", at: Instant(timeIntervalSince1970: 0)))
        XCTAssertEqual(try store.mutes().active(at: Instant(timeIntervalSince1970: 0)).count, 0)
        XCTAssertTrue(logs.lines.contains { $0.message == "Mail's mute ended" }, "\(logs.lines)")
    }
}
