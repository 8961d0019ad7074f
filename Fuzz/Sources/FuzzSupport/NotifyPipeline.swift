import FocusBridgeCore
import FocusBridgeDBus
@testable import FocusBridgeServer
import FocusBridgeStore
import Foundation

/// What the bridge does with the arguments of one `Notify` call, step by step as `Bridge.accept`
/// and `Bridge.deliver` do it, with the product's invariants checked after each step:
///
/// 1. the arguments as the store keeps a held notification (serialised, read back on replay);
/// 2. `NotificationsInterface.decode` (hints, actions, the `i`, the `u`);
/// 3. `AppIdentity.resolve` and `Policy.decide` under several contexts (defaults; Focus on,
///    silent, screen locked, previews hidden; rules for the very app; a duplicate; a flood);
/// 4. `HintEditor.forwardedHints` and the `(susssasa{sv}i)` sent to the daemon, serialised;
/// 5. the reports `focusctl` prints (JSON), and for a held outcome the store's hold and read-back.
public enum NotifyPipeline {
    public static let signature = "(susssasa{sv}i)"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
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
        let notification = NotificationsInterface.decode(arguments)
        Fuzz.require(summary(of: notification) == summary(of: NotificationsInterface.decode(reloaded)),
                     "a stored notification decodes differently")
        _ = notification.actionPairs
        _ = notification.desktopEntry

        // 3.–5. Every context, with and without a known sending process.
        for process in processes {
            let app = AppIdentity.resolve(notification, process: process)
            Fuzz.require(!app.key.isEmpty, "empty app key")
            for context in contexts(for: app) {
                let decision = Policy.decide(notification, app: app, context: context)
                check(decision, notification, context)
                forward(decision, notification, arguments, process: process)
                report(decision, notification, context: context, arguments: arguments, process: process)
            }
            repeated(notification, arguments, app: app, process: process)
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

    // MARK: Checks

    /// The promises of PRODUCT.md §2–§4 that hold whatever the input.
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
            let original = decision.actions.originalKeys[key] ?? key
            Fuzz.require(sent.contains(original), "action \"\(key)\" forwarded that the client did not send")
        }
        Fuzz.require(decision.actions.flat.count == 2 * actions.count, "odd forwarded actions")
        if decision.outcome == .coalesced { Fuzz.require(decision.replaces != nil, "coalesced without an original") }
    }

    /// `Bridge.deliver`: the arguments the daemon receives.
    static func forward(_ decision: Decision, _ notification: NotificationRequest, _ arguments: Variant,
                        process: ProcessIdentity?) {
        let presentation = decision.presentation
        let hints = HintEditor.forwardedHints(arguments.child(6), presentation: presentation, notification: notification,
                                              app: decision.app, process: process.map { ProcessIdentity(processID: $0.processID) })
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
        for entry in arguments.child(6).dictionaryEntries {
            original[entry.key + "\u{0}" + hex(entry.value.bytes), default: 0] += 1
        }
        for entry in forwardedEntries where !addedHints.contains(entry.key) {
            let key = entry.key + "\u{0}" + hex(entry.value.bytes)
            Fuzz.require((original[key] ?? 0) > 0, "hint \(entry.key) forwarded changed or twice: \(entry.value.description)")
            original[key]! -= 1
        }

        let forwarded = ForwardedNotification(
            id: 7, appKey: decision.app.key, level: decision.level,
            appName: arguments.child(0), appIcon: arguments.child(2),
            summary: presentation.summary.map(Variant.string) ?? arguments.child(3),
            body: presentation.body.map(Variant.string) ?? arguments.child(4),
            actions: .strings(decision.actions.flat), hints: hints, expireTimeout: arguments.child(7))
        let message = forwarded.arguments(replacing: 3)
        Fuzz.require(message.typeString == signature, "forwarded \(message.typeString)")
        let bytes = message.bytes
        Fuzz.require(Variant(type: signature, bytes: bytes) != nil, "the forwarded arguments are not in normal form")
        _ = message.description
        _ = JSONText.quote(forwarded.summary.string ?? "") + JSONText.quote(forwarded.body.string ?? "")
    }

    /// What `focusctl explain` and `focusctl history` print, and the store for held outcomes.
    static func report(_ decision: Decision, _ notification: NotificationRequest, context: PolicyContext,
                       arguments: Variant, process: ProcessIdentity?) {
        let explained = DecisionReport(decision)
        let text = JSONText.encode(explained)
        Fuzz.require((try? JSONText.decode(DecisionReport.self, from: text)) == explained, "explain JSON does not read back: \(text)")

        let history = HistoryEntry(id: 7, app: decision.app.key, summary: notification.summary, body: notification.body,
                                   level: decision.level, decision: decision.outcome, received: now)
        let listed = HistoryReport(history)
        let line = JSONText.encode(listed)
        Fuzz.require((try? JSONText.decode(HistoryReport.self, from: line)) == listed, "history JSON does not read back: \(line)")

        switch decision.outcome {
        case .heldFocus, .heldSummary:
            let reason: HeldNotification.Reason = decision.outcome == .heldSummary
                ? .summary : .focus(context.activeFocus?.name ?? "")
            let item = HeldNotification(id: 0, reason: reason, app: decision.app.key, summary: notification.summary,
                                        body: notification.body, level: decision.level,
                                        relevance: HeldNotification.relevance(of: notification), received: now,
                                        holders: [Caller(connection: sender)], processID: process?.processID)
            Fuzz.require((0...1).contains(item.relevance), "relevance \(item.relevance) outside 0…1")
            HeldStore.shared.hold(item, arguments: arguments, history: history)
            _ = Digest.afterFocus("Work", [item, item])
        default:
            break
        }
    }

    /// The same notification again (coalesced), and past a rate limit of one (collapsed).
    static func repeated(_ notification: NotificationRequest, _ arguments: Variant, app: AppIdentity,
                         process: ProcessIdentity?) {
        var context = PolicyContext(now: now)
        let first = Policy.decide(notification, app: app, context: context)
        guard first.outcome == .delivered else { return }
        context.recent.delivered(7, appKey: app.key, summary: notification.summary, body: notification.body, at: now)
        context.now = now.addingTimeInterval(1)
        let again = Policy.decide(notification, app: app, context: context)
        Fuzz.require(again.outcome == .coalesced && again.replaces == 7,
                     "the same notification again is \(again.outcome.rawValue), not coalesced")
        check(again, notification, context)

        var flooded = PolicyContext(now: now.addingTimeInterval(1), flood: FloodGate(limit: 1, window: 10))
        flooded.flood.delivered(app.key, at: now)
        let over = Policy.decide(notification, app: app, context: flooded)
        if first.level != .critical && notification.replacesID == 0 {
            Fuzz.require(over.outcome == .collapsed, "past the rate limit: \(over.outcome.rawValue), not collapsed")
        }
        // `Bridge.collapse`: the "N more from App" notification.
        let title = "2 more from \(app.key)"
        let request = NotificationRequest(appName: app.key, summary: title, body: notification.summary,
                                          hints: [LevelResolver.levelHint: .string("passive")])
        let collapsed = Variant.tuple([arguments.child(0), .uint32(0), arguments.child(2), .string(title),
                                       .string(notification.summary), .strings([]), .dictionary([]), .int32(-1)])
        let decision = Policy.decide(request, app: app, context: PolicyContext(now: now))
        check(decision, request, PolicyContext(now: now))
        forward(decision, request, collapsed, process: process)
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

/// A state database on tmpfs that held notifications go through, as in `Bridge.accept` (group
/// commit) and `Bridge.replay` (payload read back).
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
                      let arguments = Variant(type: payload.type, bytes: payload.bytes),
                      arguments.typeString == NotifyPipeline.signature else {
                    return Fuzz.require(false, "the stored notification \(hold.item.id) cannot be read (replay drops it)")
                }
                Fuzz.require(arguments.bytes == hold.payload, "held payload changed")
            }
            try store.removeHeld(pending.map(\.0.item.id))
        } catch {
            Fuzz.require(false, "reading held notifications back failed: \(error)")
        }
    }
}
