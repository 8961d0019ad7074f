import FocusBridgeConfig
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeJSON
import FocusBridgeTOML
@testable import FocusBridgeServer
import FocusBridgeTime
import Foundation

/// The configuration file from its bytes to what the bridge does with it: the TOML reader
/// (`FocusBridgeTOML`: its positions checked), `Configuration.parse` (FocusBridge's schema and its
/// error positions), then the settings put to use as `Bridge`, `FocusController` and `focusctl`
/// use them — rate limit, coalescing, Focus schedules, the summary schedule, decisions for each
/// app rule and Focus, the downstream plan, the reports.
public enum ConfigPipeline {
    static let path = "/home/user/.config/focus-bridge/config.toml"
    static let now = Instant(timeIntervalSince1970: 1_800_000_000)
    static let timeZone = SystemTimeZone.named("Europe/Berlin") ?? .utc

    public static func run(bytes: [UInt8]) {
        // Lines end at LF (CR LF ends in one too).
        let lines = bytes.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        let parsed: Result<TOMLTable, TOMLError>
        do throws(TOMLError) {
            parsed = .success(try TOMLParser.parse(bytes: bytes))
        } catch {
            parsed = .failure(error)
        }
        switch parsed {
        case .success(let root):
            checkPositions(.table(root), lines: lines)
        case .failure(let error):
            Fuzz.require((1...lines).contains(error.position.line) && error.position.column >= 1, "TOML error at \(error)")
            Fuzz.require(!error.message.isEmpty, "empty TOML error message")
        }
        // Text gives what its bytes give.
        if let text = String(validating: bytes, as: UTF8.self) {
            let again = Result { () throws(TOMLError) -> TOMLTable in try TOMLParser.parse(text) }
            Fuzz.require(again == parsed, "TOMLParser.parse(text) differs from parse(bytes:)")
        }

        let configuration: Configuration
        do {
            configuration = try Configuration.parse(bytes: bytes, path: path)
        } catch {
            Fuzz.require(error.path == path, "error names \(error.path)")
            Fuzz.require(error.line >= 1 && error.line <= lines, "error at line \(error.line) of \(lines): \(error)")
            Fuzz.require(error.column >= 1, "error at column \(error.column): \(error)")
            Fuzz.require(!error.message.isEmpty, "empty error message")
            if case .failure(let syntax) = parsed {
                Fuzz.require(error.line == syntax.position.line && error.column == syntax.position.column
                             && error.message == syntax.message, "the syntax error changed on its way: \(syntax) → \(error)")
            }
            _ = error.description
            return
        }
        Fuzz.require((try? parsed.get()) != nil, "a configuration from a file the TOML reader refuses")
        use(configuration)
    }

    /// Every key and value of an accepted file stands inside the file; a key comes before its
    /// scalar value.
    static func checkPositions(_ value: TOMLValue, lines: Int) {
        func inside(_ position: TOMLPosition) -> Bool { (1...lines).contains(position.line) && position.column >= 1 }
        switch value {
        case .table(let table):
            Fuzz.require(inside(table.position), "table at \(table.position)")
            for entry in table.entries {
                Fuzz.require(inside(entry.keyPosition) && inside(entry.valuePosition),
                             "`\(entry.key)` at \(entry.keyPosition), its value at \(entry.valuePosition)")
                if entry.value.table == nil && entry.value.array == nil {
                    Fuzz.require(entry.keyPosition < entry.valuePosition, "`\(entry.key)`'s value before the key")
                }
                checkPositions(entry.value, lines: lines)
            }
        case .array(let array):
            Fuzz.require(inside(array.position), "array at \(array.position)")
            for element in array.elements {
                Fuzz.require(inside(element.position), "element at \(element.position)")
                checkPositions(element.value, lines: lines)
            }
        default:
            break
        }
    }

    /// Notifications that exercise every rule of the policy.
    static let samples: [NotificationRequest] = [
        NotificationRequest(appName: "Mail", summary: "New mail", body: "Hello",
                            actions: ["default", "", "delete", "Delete", "archive", "Archive", "a", "b", "c", "d"],
                            hints: ["urgency": .integer(1)]),
        NotificationRequest(appName: "Chat", summary: "Alice", body: "lunch?",
                            hints: ["category": .string("im.received"), Communication.senderHint: .string("Alice")]),
        NotificationRequest(appName: "Phone", summary: "Call", hints: ["category": .string("call.incoming")]),
        NotificationRequest(appName: "Alerts", summary: "Flood", hints: ["category": .string("cellbroadcast.amber-alert"),
                                                                           "urgency": .integer(2)]),
        NotificationRequest(appName: "Net", summary: "Connected", hints: ["urgency": .integer(0), "transient": .bool(true)]),
    ]

    static func use(_ configuration: Configuration) {
        let settings = configuration.policy
        let general = settings.general
        Fuzz.require((0...ActionNormaliser.buttonLimit).contains(general.maxActions), "max-actions \(general.maxActions)")

        // Bridge.init: the rate limit.
        var flood = FloodGate(limit: general.rateLimit, window: Double(general.rateLimitSeconds))

        // FocusController: which Focus is on, and when the summary comes (calendar arithmetic is
        // the slow part of this target: one time zone, with DST).
        let engine = FocusEngine(focuses: settings.focuses, timeZone: timeZone)
        if settings.focuses.contains(where: { !$0.schedule.isEmpty }) {
            if let scheduled = engine.scheduled(at: now) {
                Fuzz.require(settings.focus(named: scheduled.name) != nil, "scheduled Focus \(scheduled.name) not found")
                Fuzz.require(scheduled.since <= now && (scheduled.until.map { $0 > now } ?? true), "scheduled Focus not on now")
            }
            if let boundary = engine.nextScheduleBoundary(after: now) { Fuzz.require(boundary > now, "boundary not after now") }
        }
        if let first = settings.focuses.first {
            let manual = ManualFocus(state: .on(first.name), since: now, until: now.addingTimeInterval(3600))
            Fuzz.require(engine.active(at: now, manual: manual)?.name == first.name, "a manual Focus is not on")
        }
        let summary = SummarySchedule(times: settings.summaryTimes, timeZone: timeZone)
        if let next = summary.next(after: now) { Fuzz.require(next > now, "the next summary is not after now") }

        // Decisions: no Focus, then each Focus on; as each app the file names, and each sample.
        var apps = settings.apps.keys.sorted().map { AppIdentity(key: $0, source: .appName) }
        apps.append(AppIdentity(key: "Mail", source: .appName))
        let focuses: [FocusProfile?] = [nil] + settings.focuses.map(Optional.some)
        for focus in focuses.prefix(4) {
            for app in apps.prefix(4) {
                for sample in samples {
                    let context = PolicyContext(settings: settings, now: now, silent: focus != nil, screenLocked: focus != nil,
                                                activeFocus: focus.flatMap { settings.focus(named: $0.name) }, flood: flood)
                    let decision = Policy.decide(sample, app: app, context: context)
                    NotifyPipeline.check(decision, sample, context)
                    _ = JSONText.encode(DecisionReport(decision))
                }
            }
        }

        // `Bridge.deliver` then the same again (coalescing), and past the rate limit (collapse).
        let app = AppIdentity(key: apps[0].key, source: .appName)
        var recent = DuplicateTracker()
        var at = now
        for (index, sample) in samples.enumerated() {
            for _ in 0..<2 {
                let context = PolicyContext(settings: settings, now: at, recent: recent, flood: flood)
                let decision = Policy.decide(sample, app: app, context: context)
                NotifyPipeline.check(decision, sample, context)
                if decision.outcome == .delivered || decision.outcome == .coalesced {
                    flood.delivered(app.key, at: at)
                    recent.delivered(UInt32(index + 1), appKey: app.key, summary: sample.summary, body: sample.body, at: at)
                }
                at = at.addingTimeInterval(1)
            }
        }

        // What focusctl prints.
        for focus in settings.focuses { _ = JSONText.encode(FocusListReport(focus, active: false)) }
        _ = try? DownstreamPlan.resolve(configuration.downstream, environment: [:], nameOwner: { _ in nil })
    }
}
