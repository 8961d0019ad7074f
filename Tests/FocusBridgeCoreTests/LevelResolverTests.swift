import FocusBridgeCore
import XCTest

/// Every row of the level table (focus-bridge.toml(5), INTERRUPTION LEVELS), one case each: input → level.
final class LevelResolverTests: XCTestCase {
    private struct Case {
        let name: String
        let hints: [String: HintValue]
        var rule = AppRule()
        let level: InterruptionLevel
    }

    private func rule(_ change: (inout AppRule) -> Void) -> AppRule {
        var rule = AppRule()
        change(&rule)
        return rule
    }

    func testTheTableFirstRuleThatAppliesWins() {
        let cases: [Case] = [
            // 1: per-app level wins over everything below
            Case(name: "1 app level", hints: ["urgency": .integer(2), "category": .string("call")],
                 rule: rule { $0.level = .passive }, level: .passive),
            // 2: the hint
            Case(name: "2 hint passive", hints: ["x-focus-interruption-level": .string("passive"), "urgency": .integer(2)], level: .passive),
            Case(name: "2 hint active", hints: ["x-focus-interruption-level": .string("active"), "urgency": .integer(0)], level: .active),
            Case(name: "2 hint time-sensitive", hints: ["x-focus-interruption-level": .string("time-sensitive")], level: .timeSensitive),
            Case(name: "2 hint critical, entitled", hints: ["x-focus-interruption-level": .string("critical")],
                 rule: rule { $0.critical = true }, level: .critical),
            Case(name: "2 bad hint ignored", hints: ["x-focus-interruption-level": .string("loud")], level: .active),
            // 3: critical categories (entitled app)
            Case(name: "3 danger", hints: ["category": .string("cellbroadcast.danger.extreme")], rule: rule { $0.critical = true }, level: .critical),
            Case(name: "3 amber", hints: ["category": .string("cellbroadcast.amber-alert")], rule: rule { $0.critical = true }, level: .critical),
            Case(name: "3 public safety", hints: ["category": .string("cellbroadcast.public-safety")], rule: rule { $0.critical = true }, level: .critical),
            Case(name: "3 weather", hints: ["category": .string("weather.warning.extreme"), "urgency": .integer(0)],
                 rule: rule { $0.critical = true }, level: .critical),
            // 4: time-sensitive categories
            Case(name: "4 call", hints: ["category": .string("call"), "urgency": .integer(0)], level: .timeSensitive),
            Case(name: "4 call.incoming", hints: ["category": .string("call.incoming")], level: .timeSensitive),
            Case(name: "4 alarm", hints: ["category": .string("alarm.ringing")], level: .timeSensitive),
            Case(name: "4 battery", hints: ["category": .string("os.battery.low")], level: .timeSensitive),
            // 5: urgency 2
            Case(name: "5 urgency critical", hints: ["urgency": .integer(2)], level: .timeSensitive),
            Case(name: "5 urgency critical, entitled", hints: ["urgency": .integer(2)], rule: rule { $0.critical = true }, level: .critical),
            Case(name: "5 urgency clamped", hints: ["urgency": .integer(7)], level: .timeSensitive),
            // 6: urgency 0 and the passive categories
            Case(name: "6 urgency low", hints: ["urgency": .integer(0)], level: .passive),
            Case(name: "6 urgency negative clamps to low", hints: ["urgency": .integer(-3)], level: .passive),
            Case(name: "6 presence", hints: ["category": .string("presence.online")], level: .passive),
            Case(name: "6 network.connected", hints: ["category": .string("network.connected")], level: .passive),
            Case(name: "6 network.disconnected", hints: ["category": .string("network.disconnected")], level: .passive),
            Case(name: "6 device.added", hints: ["category": .string("device.added")], level: .passive),
            Case(name: "6 device.removed", hints: ["category": .string("device.removed")], level: .passive),
            Case(name: "6 transfer.complete", hints: ["category": .string("transfer.complete")], level: .passive),
            Case(name: "6 cellbroadcast.test", hints: ["category": .string("cellbroadcast.test")], level: .passive),
            // 7: anything else
            Case(name: "7 nothing", hints: [:], level: .active),
            Case(name: "7 urgency normal", hints: ["urgency": .integer(1)], level: .active),
            Case(name: "7 other category", hints: ["category": .string("email.arrived")], level: .active),
            Case(name: "7 urgency of a non-integer type ignored", hints: ["urgency": .string("critical")], level: .active),
            Case(name: "7 urgency as a boolean ignored", hints: ["urgency": .bool(true)], level: .active),
        ]
        for item in cases {
            let (level, trace) = LevelResolver.resolve(NotificationRequest(hints: item.hints), rule: item.rule)
            XCTAssertEqual(level, item.level, "\(item.name): \(trace)")
            XCTAssertFalse(trace.isEmpty, item.name)
        }
    }

    func testCriticalNeedsTheEntitlement() {
        for hints: [String: HintValue] in [["x-focus-interruption-level": .string("critical")],
                                           ["category": .string("cellbroadcast.amber-alert")]] {
            let (level, trace) = LevelResolver.resolve(NotificationRequest(hints: hints), rule: AppRule())
            XCTAssertEqual(level, .timeSensitive)
            XCTAssertTrue(trace.joined().contains("entitlement"))
        }
        var forced = AppRule()
        forced.level = .critical
        XCTAssertEqual(LevelResolver.resolve(NotificationRequest(), rule: forced).level, .timeSensitive,
                       "even a configured level needs the entitlement")
    }

    func testTimeSensitiveTurnedOffGivesActive() {
        var rule = AppRule()
        rule.timeSensitive = false
        XCTAssertEqual(LevelResolver.resolve(NotificationRequest(hints: ["category": .string("call")]), rule: rule).level, .active)
        XCTAssertEqual(LevelResolver.resolve(NotificationRequest(hints: ["urgency": .integer(2)]), rule: rule).level, .active)
        rule.critical = true
        XCTAssertEqual(LevelResolver.resolve(NotificationRequest(hints: ["urgency": .integer(2)]), rule: rule).level, .critical,
                       "an entitled critical is not time-sensitive")
        rule.critical = false
        rule.level = .critical
        XCTAssertEqual(LevelResolver.resolve(NotificationRequest(), rule: rule).level, .active,
                       "critical without entitlement → time-sensitive → off → active")
    }

    func testUrgencyTwoFromAWebPageKeepsItOnScreenAndIsActive() {
        let keep = NotificationRequest(hints: ["urgency": .integer(2)])
        let (level, trace) = LevelResolver.resolve(keep, rule: AppRule(), webPage: true)
        XCTAssertEqual(level, .active)
        XCTAssertEqual(trace, ["level: active (rule 5: urgency critical from a web page asks to keep it on screen "
                               + "(requireInteraction), which is not time-sensitive)"])
        XCTAssertTrue(LevelResolver.keepsOnScreen(keep, webPage: true))
        XCTAssertFalse(LevelResolver.keepsOnScreen(keep, webPage: false))
        XCTAssertFalse(LevelResolver.keepsOnScreen(NotificationRequest(hints: ["urgency": .integer(1)]), webPage: true))
        XCTAssertEqual(LevelResolver.resolve(keep, rule: AppRule()).level, .timeSensitive, "from anything else, as before")
        // The site's entitlement, its level, a category: as for any app.
        var entitled = AppRule()
        entitled.critical = true
        XCTAssertEqual(LevelResolver.resolve(keep, rule: entitled, webPage: true).level, .critical)
        var set = AppRule()
        set.level = .timeSensitive
        XCTAssertEqual(LevelResolver.resolve(keep, rule: set, webPage: true).level, .timeSensitive)
        XCTAssertEqual(LevelResolver.resolve(NotificationRequest(hints: ["urgency": .integer(2), "category": .string("call")]),
                                             rule: AppRule(), webPage: true).level, .timeSensitive)
        XCTAssertEqual(LevelResolver.resolve(NotificationRequest(hints: ["urgency": .integer(1)]), rule: AppRule(), webPage: true).level,
                       .active)
    }

    func testCommunication() {
        let cases: [([String: HintValue], String, Bool, String?)] = [
            (["category": .string("im")], "Alice", false, "Alice"),
            (["category": .string("im.received"), "x-focus-sender": .string("Bob")], "Summary", false, "Bob"),
            (["category": .string("call.incoming")], "Mum", false, "Mum"),
            (["category": .string("call")], "Dad", false, "Dad"),
            (["category": .string("email.arrived")], "X", false, nil),
            (["category": .string("imaginary")], "X", false, nil),
            ([:], "Team Lead", true, "Team Lead"),
        ]
        for (hints, summary, communication, person) in cases {
            var rule = AppRule()
            rule.communication = communication
            XCTAssertEqual(Communication.detect(NotificationRequest(summary: summary, hints: hints), rule: rule)?.person, person,
                           "\(hints)")
        }
    }
}
