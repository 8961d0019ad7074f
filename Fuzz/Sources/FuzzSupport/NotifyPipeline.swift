import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
@testable import FocusBridgeServer
import FocusBridgeStore
import FocusBridgeTime
import Foundation

/// What the bridge does with the arguments of one `Notify` call, through the calls
/// `Bridge.execute` makes — the door's decoding, the intake's plan, the door's encoding of what
/// is shown — with the product's invariants checked after each step:
///
/// 1. the arguments as the store keeps a held notification (serialised, read back on replay);
/// 2. `NotifyArguments` and its `request` (hints, actions, the `i`, the `u`);
/// 3. `AppIdentity.resolve` and `Intake.take` under several contexts (defaults; Focus on,
///    silent, screen locked, previews hidden; rules for the very app; a duplicate; a flood);
/// 4. `NotifyArguments.forwarded` and the `(susssasa{sv}i)` sent to the daemon, serialised;
/// 5. the reports `focusctl` prints (JSON), and for a held step the plan's history row and held
///    item through the store and back.
public enum NotifyPipeline {
    public static let signature = "(susssasa{sv}i)"
    static let now = Instant(timeIntervalSince1970: 1_800_000_000)
    static let sender = ":1.42"
    static let addedHints: Set<String> = ["urgency", "suppress-sound", "desktop-entry", "sender-pid"]

    /// Untrusted serialised GVariant data (the store's payload format); GLib checks it lazily,
    /// `Variant(type:bytes:)` refuses what is not in normal form.
    public static func run(serialised bytes: [UInt8]) {
        guard let arguments = Variant(type: signature, bytes: bytes) else { return }
        run(arguments)
    }

    /// GVariant text format (`g_variant_parse`): the structure-aware way in.
    public static func run(text: String) {
        guard let arguments = Variant.parse(text, type: signature) else { return }
        run(arguments)
    }

    public static func run(_ arguments: Variant) {
        Fuzz.require(arguments.typeString == signature, "not a Notify: \(arguments.typeString)")

        // 1. A held notification's arguments are stored as bytes and must load back the same.
        let payload = arguments.bytes
        guard let reloaded = Variant(type: arguments.typeString, bytes: payload) else {
            return Fuzz.require(false, "the serialised arguments do not load back (a held notification would be lost): \(arguments.description)")
        }
        Fuzz.require(reloaded.bytes == payload, "the arguments change when stored and loaded")

        // 2. Decoding.
        let wire = NotifyArguments(arguments)
        let notification = wire.request
        guard let stored = NotifyArguments(storedType: arguments.typeString, bytes: payload) else {
            return Fuzz.require(false, "the stored arguments are not read back as a Notify's (replay drops them)")
        }
        Fuzz.require(summary(of: notification) == summary(of: stored.request), "a stored notification decodes differently")
        _ = notification.actionPairs
        _ = notification.desktopEntry

        // 3.–5. Every context, with and without a known sending process.
        for process in processes {
            let app = AppIdentity.resolve(notification, process: process)
            Fuzz.require(!app.key.isEmpty, "empty app key")
            for context in contexts(for: app) {
                let intake = take(notification, wire, app: app, context: context)
                check(intake.decision, notification, context)
                check(intake)
                forward(intake.shown, wire, process: process)
                report(intake, notification, arguments: arguments, process: process)
            }
            repeated(notification, wire, app: app, process: process)
        }
        HeldStore.shared.checkAndEmpty()
    }

    // MARK: Contexts

    static let processes: [ProcessIdentity?] = [
        nil,
        ProcessIdentity(processID: 4242, flatpakInfo: "[Application]\nname=org.example.Flatpak\n",
                        cgroup: "0::/user.slice/app-gnome-org.example.Scope-1234.scope\n",
                        executablePath: "/usr/bin/example (deleted)"),
    ]

    /// The live states a decision is made under, for a notification from `app`.
    static func contexts(for app: AppIdentity) -> [PolicyContext] {
        var result = [PolicyContext(now: now)]

        // An evening with everything on: Focus, silent, locked, previews hidden, two buttons.
        var busy = PolicySettings()
        busy.general.previews = .whenUnlocked
        busy.general.maxActions = 2
        busy.general.destructiveLabels = ["Delete", "Mark as spam", ""]
        busy.general.destructiveMarker = ""
        var work = FocusProfile(name: "Work")
        work.apps = .allowOnly(["org.example.Chat"])
        work.people = ["Alice", ""]
        work.timeSensitive = false
        work.previews = .never
        busy.focuses = [work]
        result.append(PolicyContext(settings: busy, now: now, silent: true, screenLocked: true,
                                    capabilities: ["body"], activeFocus: work))

        // Rules for this very app (looked up without regard to case): summary delivery, critical
        // allowed, communication, previews when unlocked; a Focus that silences it.
        var ruled = PolicySettings()
        var rule = AppRule()
        rule.delivery = .summary
        rule.critical = true
        rule.communication = true
        rule.previews = .whenUnlocked
        ruled.apps[app.key.lowercased()] = rule
        ruled.general.maxActions = 0
        var quiet = FocusProfile(name: "Quiet")
        quiet.apps = .silence([app.key])
        quiet.people = [app.key]
        ruled.focuses = [quiet]
        result.append(PolicyContext(settings: ruled, now: now, screenLocked: true,
                                    capabilities: ["actions", "body", "action-icons"], activeFocus: quiet))

        // The app forced to a level it is not entitled to, Time Sensitive off; then the app off.
        var forced = PolicySettings()
        var strict = AppRule()
        strict.level = .critical
        strict.timeSensitive = false
        strict.previews = .never
        forced.apps[app.key] = strict
        result.append(PolicyContext(settings: forced, now: now, silent: true))
        var off = PolicySettings()
        var offRule = AppRule()
        offRule.delivery = .off
        off.apps[app.key.uppercased()] = offRule
        result.append(PolicyContext(settings: off, now: now))
        return result
    }

    /// `Bridge.plan`: a first notification from `sender`, nothing shown or held unless `table`
    /// says so.
    static func take(_ notification: NotificationRequest, _ wire: NotifyArguments, app: AppIdentity,
                     context: PolicyContext, table: NotificationTable = NotificationTable()) -> Intake {
        Intake.take(notification, app: app, caller: Caller(connection: sender), payloadBytes: wire.byteCount,
                    context: context, focusName: context.activeFocus?.name, table: table, held: { _ in nil },
                    newID: { 7 })
    }

    // MARK: Checks

    /// The intake agrees with its decision: one step per outcome, the sender holds the ID.
    static func check(_ intake: Intake) {
        Fuzz.require(intake.holders.last?.connection == sender, "the sender does not hold its ID")
        Fuzz.require(!intake.replacesHeld, "released a held notification when none was held")
        switch (intake.step, intake.decision.outcome) {
        case (.hold(.summary), .heldSummary), (.hold(.focus), .heldFocus), (.drop, .dropped), (.collapse, .collapsed),
             (.forward, .delivered), (.forward, .coalesced):
            break
        default:
            Fuzz.require(false, "step \(intake.step) for outcome \(intake.decision.outcome.rawValue)")
        }
        if intake.tooHeavyToHold { Fuzz.require(intake.decision.outcome == .delivered, "too heavy to hold, yet held") }
        let history = intake.history
        Fuzz.require(history.id == intake.number && history.level == intake.decision.level
                     && history.decision == intake.decision.outcome, "the history row is not the plan's")
        if case .hold = intake.step {
            Fuzz.require(intake.held?.id == intake.number && intake.held?.holders == intake.holders, "held without its item")
        } else {
            Fuzz.require(intake.held == nil, "a held item for step \(intake.step)")
        }
    }

    /// What a decision promises whatever the input: an urgency of 0 to 2 (2 for a critical one),
    /// no sound when passive or silent, a trace, and actions without repeats, within the button
    /// limit, each the app's own or one of the bridge's quick actions where it applies.
    static func check(_ decision: Decision, _ notification: NotificationRequest, _ context: PolicyContext) {
        let presentation = decision.presentation
        Fuzz.require(presentation.urgency <= 2, "urgency \(presentation.urgency)")
        if decision.level == .critical { Fuzz.require(presentation.urgency == 2, "critical without urgency 2") }
        if decision.level == .passive || (context.silent && decision.level != .critical) {
            Fuzz.require(presentation.suppressSound, "sound not suppressed at \(decision.level) silent=\(context.silent)")
        }
        Fuzz.require(!decision.trace.isEmpty, "no trace")

        let actions = decision.actions.actions
        let keys = actions.map(\.key)
        Fuzz.require(Set(keys).count == keys.count, "repeated action keys forwarded: \(keys)")
        let buttons = actions.filter { $0.key != "default" && $0.key != "inline-reply" }
        let limit = min(max(context.settings.general.maxActions, 0), ActionNormaliser.buttonLimit)
        Fuzz.require(buttons.count <= limit, "\(buttons.count) buttons forwarded, limit \(limit)")
        let sent = Set(notification.actionPairs.map(\.key))
        for key in keys {
            // The bridge's own quick actions (focus-bridge.toml(5), QUICK ACTIONS): only where
            // they apply; an app's key in their space never goes out.
            if let quick = QuickAction.action(forKey: key) {
                Fuzz.require(decision.level != .critical, "quick action \(key) on a critical notification")
                if quick == .turnOffTimeSensitive {
                    Fuzz.require(decision.level == .timeSensitive, "Turn Off Time Sensitive at \(decision.level)")
                }
                continue
            }
            Fuzz.require(!key.hasPrefix(QuickAction.keyPrefix), "the app's key \"\(key)\" in the quick actions' space forwarded")
            let original = decision.actions.originalKeys[key] ?? key
            Fuzz.require(sent.contains(original), "action \"\(key)\" forwarded that the client did not send")
        }
        // Never before the app's own actions (an inline reply stays last).
        if let first = keys.firstIndex(where: { QuickAction.action(forKey: $0) != nil }) {
            Fuzz.require(keys[first...].allSatisfy { QuickAction.action(forKey: $0) != nil || $0 == "inline-reply" },
                         "an app's action after a quick action: \(keys)")
        }
        Fuzz.require(decision.actions.flat.count == 2 * actions.count, "odd forwarded actions")
        if decision.outcome == .coalesced { Fuzz.require(decision.replaces != nil, "coalesced without an original") }
    }

    /// `Bridge.deliver`: the arguments the daemon receives.
    static func forward(_ shown: Shown, _ wire: NotifyArguments, process: ProcessIdentity?) {
        let presentation = shown.presentation
        let forwarded = wire.forwarded(id: 7, shown: shown, process: process.map { ProcessIdentity(processID: $0.processID) })
        let hints = forwarded.hints.variant
        Fuzz.require(hints.typeString == "a{sv}", "forwarded hints of type \(hints.typeString)")
        let forwardedEntries = hints.dictionaryEntries
        Fuzz.require(forwardedEntries.filter { $0.key == "urgency" }.count == 1, "not exactly one urgency hint forwarded")
        Fuzz.require(forwardedEntries.allSatisfy { !$0.key.hasPrefix(Presentation.vendorHintPrefix) },
                     "an x-focus-* hint forwarded")
        if presentation.summary != nil {
            Fuzz.require(forwardedEntries.allSatisfy { !Presentation.imageHints.contains($0.key) },
                         "an image forwarded while the preview is hidden")
        }
        // Every hint the bridge does not set itself is the client's, byte for byte.
        var original: [String: Int] = [:]
        for entry in wire.hints.variant.dictionaryEntries {
            original[entry.key + "\u{0}" + hex(entry.value.bytes), default: 0] += 1
        }
        for entry in forwardedEntries where !addedHints.contains(entry.key) {
            let key = entry.key + "\u{0}" + hex(entry.value.bytes)
            Fuzz.require((original[key] ?? 0) > 0, "hint \(entry.key) forwarded changed or twice: \(entry.value.description)")
            original[key]! -= 1
        }

        let message = forwarded.arguments(replacing: 3)
        Fuzz.require(message.typeString == signature, "forwarded \(message.typeString)")
        let bytes = message.bytes
        Fuzz.require(Variant(type: signature, bytes: bytes) != nil, "the forwarded arguments are not in normal form")
        _ = message.description
        _ = JSONText.quote(forwarded.summary) + JSONText.quote(forwarded.body)
    }

    /// What `focusctl explain` and `focusctl history` print, and the store for held outcomes.
    static func report(_ intake: Intake, _ notification: NotificationRequest, arguments: Variant,
                       process: ProcessIdentity?) {
        let decision = intake.decision
        let explained = DecisionReport(decision)
        let text = JSONText.encode(explained)
        Fuzz.require((try? JSONText.decode(DecisionReport.self, from: text)) == explained, "explain JSON does not read back: \(text)")

        let history = intake.history
        let listed = HistoryReport(history)
        let line = JSONText.encode(listed)
        Fuzz.require((try? JSONText.decode(HistoryReport.self, from: line)) == listed, "history JSON does not read back: \(line)")

        switch intake.step {
        case .hold:
            guard let item = intake.held else { return Fuzz.require(false, "a hold without its item") }
            Fuzz.require((0...1).contains(item.relevance), "relevance \(item.relevance) outside 0…1")
            HeldStore.shared.hold(item, arguments: arguments, history: history)
            _ = Digest.afterFocus("Work", [item, item])
        default:
            break
        }
    }

    /// The same notification again (coalesced), and past a rate limit of one (collapsed).
    static func repeated(_ notification: NotificationRequest, _ wire: NotifyArguments, app: AppIdentity,
                         process: ProcessIdentity?) {
        var context = PolicyContext(now: now)
        let first = take(notification, wire, app: app, context: context)
        guard first.decision.outcome == .delivered else { return }
        var table = NotificationTable()
        table.track(7, appKey: app.key, holder: Caller(connection: sender))
        context.recent.delivered(7, appKey: app.key, summary: notification.summary, body: notification.body, at: now)
        context.now = now.addingTimeInterval(1)
        let again = take(notification, wire, app: app, context: context, table: table)
        Fuzz.require(again.decision.outcome == .coalesced && again.decision.replaces == 7 && again.id == .existing(7),
                     "the same notification again is \(again.decision.outcome.rawValue), not coalesced into 7")
        Fuzz.require(again.step == .forward(counts: false), "a coalesced notification counts toward the rate limit")
        check(again.decision, notification, context)

        var flooded = PolicyContext(now: now.addingTimeInterval(1), flood: FloodGate(limit: 1, window: 10))
        flooded.flood.delivered(app.key, at: now)
        let over = take(notification, wire, app: app, context: flooded)
        if first.decision.level != .critical && notification.replacesID == 0 {
            Fuzz.require(over.step == .collapse, "past the rate limit: \(over.decision.outcome.rawValue), not collapsed")
        }
        // `FloodCollapse`: the "N more from App" notification, passive, shown as `Policy.present` says.
        let title = "2 more from \(app.key)"
        let collapsed = NotifyArguments.own(appName: wire.appName, appIcon: wire.appIcon, summary: title,
                                            body: notification.summary)
        var request = collapsed.request
        request.appName = app.key
        let shown = Policy.present(request, app: app, level: .passive, context: PolicyContext(now: now))
        Fuzz.require(shown.level == .passive, "a \"more from\" notification at \(shown.level)")
        forward(shown, collapsed, process: process)
    }

    // MARK: Helpers

    /// A comparable summary of a decoded notification (NaN hints compare by their text).
    static func summary(of notification: NotificationRequest) -> String {
        let hints = notification.hints.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return "\(notification.appName)|\(notification.replacesID)|\(notification.appIcon)|\(notification.summary)|"
            + "\(notification.body)|\(notification.actions)|\(hints)|\(notification.expireTimeout)"
    }

    static func hex(_ bytes: [UInt8]) -> String {
        String(bytes.flatMap { byte in [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 15)]] })
    }

    private static let hexDigits = Array("0123456789abcdef")
}

/// A state database on tmpfs that held notifications go through, as in `Bridge.execute` (group
/// commit) and `HeldRegistry.nextReplay` (payload read back).
final class HeldStore: @unchecked Sendable {
    static let shared = HeldStore()

    private let store: Store?
    private var pending: [(Store.Hold, HistoryEntry)] = []
    private var nextID: UInt32 = 1

    /// A folder of its own per process (on tmpfs where there is one), removed at exit; under
    /// `FUZZ_STATE_DIR` when set (scripts/fuzz.sh removes that after a crash too).
    static let directory: String = {
        let base = ProcessInfo.processInfo.environment["FUZZ_STATE_DIR"]
            ?? (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory())
        return "\(base)/focus-bridge-fuzz-\(getpid())"
    }()

    private init() {
        try? FileManager.default.removeItem(atPath: Self.directory)
        // FUZZ_STORE=0 leaves the store out (faster, decoding and policy only).
        store = ProcessInfo.processInfo.environment["FUZZ_STORE"] == "0" ? nil : try! Store(directory: Self.directory)
        atexit { try? FileManager.default.removeItem(atPath: HeldStore.directory) }
    }

    func hold(_ item: HeldNotification, arguments: Variant, history: HistoryEntry) {
        guard store != nil else { return }
        var item = item
        item.id = nextID
        nextID += 1
        var entry = history
        entry.id = item.id
        pending.append((Store.Hold(item: item, payloadType: arguments.typeString, payload: arguments.bytes), entry))
    }

    /// Commits what this input held (one batch, as the bridge does), reads it back as a replay
    /// would, and empties the store for the next input.
    func checkAndEmpty() {
        guard let store, !pending.isEmpty else { return }
        defer { pending = [] }
        do {
            try store.commit(history: pending.map(\.1), holds: pending.map(\.0))
        } catch {
            return Fuzz.require(false, "the store refused \(pending.count) held notification(s): \(error)")
        }
        do {
            let listed = try store.heldNotifications()
            Fuzz.require(listed.count == pending.count, "\(pending.count) held, \(listed.count) listed")
            for (hold, _) in pending {
                guard let stored = listed.first(where: { $0.item.id == hold.item.id })?.item else {
                    return Fuzz.require(false, "held notification \(hold.item.id) missing")
                }
                Fuzz.require(stored.app == hold.item.app && stored.summary == hold.item.summary && stored.body == hold.item.body
                             && stored.level == hold.item.level && stored.reason == hold.item.reason,
                             "held notification \(hold.item.id) changed in the store")
                guard let payload = try store.heldPayload(hold.item.id),
                      let arguments = NotifyArguments(storedType: payload.type, bytes: payload.bytes) else {
                    return Fuzz.require(false, "the stored notification \(hold.item.id) cannot be read (replay drops it)")
                }
                Fuzz.require(arguments.all.bytes == hold.payload, "held payload changed")
            }
            try store.removeHeld(pending.map(\.0.item.id))
        } catch {
            Fuzz.require(false, "reading held notifications back failed: \(error)")
        }
    }
}
