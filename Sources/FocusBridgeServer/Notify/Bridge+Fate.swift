import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeStore
import FocusBridgeTime

/// What focusctl does to one notification by its ID — explain it, show it again, dismiss it —
/// and history's record of what became of each (`Fate`). What it does to a held one is a
/// transition of the ledger; every ID still ends once, with one `NotificationClosed` to each
/// holder (`Bridge.ended`).
extension Bridge {
    /// A fate action (explain ID, show, dismiss, show-all, snooze) that cannot be done: one
    /// sentence for the person, an `org.focusbridge.Error.InvalidRequest` on the control call.
    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// Notes in history that `id` went to a daemon whose own Do Not Disturb is on (dunst paused).
    func noteDaemonQuiet(_ id: UInt32) {
        guard let quiet = downstream.daemonQuiet, quiet.on else { return }
        // "dunst paused (dunstctl set-paused)" → "dunst paused".
        let short = quiet.how.firstRange(of: " (").map { String(quiet.how[..<$0.lowerBound]) } ?? quiet.how
        commit.noteFate(id, FateStep(.daemonQuiet, at: clock.now, detail: short))
    }

    /// The sentence for an ID history does not know.
    static func unknown(_ id: UInt32) -> Refused {
        Refused(description: "there is no notification \(id) in history (focusctl history lists the IDs).")
    }

    // MARK: explain ID

    /// Notification `id` as history keeps it, with the decision it would get now (the decision
    /// path of every `Notify`, with the live state).
    func explainNotification(_ id: UInt32) throws -> ExplainIDReport {
        guard id != 0, let entry = try store.entry(id: id) else { throw Self.unknown(id) }
        var context = policyContext()
        // Not a duplicate of itself.
        context.recent.closed(id)
        let request = entry.kept?.notification(summary: entry.summary, body: entry.body)
            ?? NotificationRequest(appName: entry.app, summary: entry.summary, body: entry.body)
        let app = entry.kept?.app(key: entry.app, via: entry.via) ?? AppIdentity(key: entry.app, source: .appName)
        return ExplainIDReport(entry, now: Explanation.decide(request, app: app, context: context))
    }

    // MARK: show ID

    /// Shows notification `id` now: a held one goes out as itself (its app hears its actions and
    /// its close); a past one is shown again as a copy from what history keeps of it, under a
    /// new ID the bridge holds (no actions: its app may be gone).
    func show(_ id: UInt32) throws -> FateActionReport {
        if id != 0, let item = ledger.held[id] {
            perform(ledger.transition(.show(id), now: clock.now))
            return FateActionReport(action: "show", ids: [id],
                                    message: "Notification \(id) (\(item.app)), \(item.reason.waiting(now: clock.now)), is shown now as itself.")
        }
        guard id != 0, let entry = try store.entry(id: id) else { throw Self.unknown(id) }
        let copy = newID()
        let kept = entry.kept
        var request = kept?.notification(summary: entry.summary, body: entry.body)
            ?? NotificationRequest(appName: entry.app, summary: entry.summary, body: entry.body)
        request.actions = []
        request.replacesID = 0
        let app = kept?.app(key: entry.app, via: entry.via) ?? AppIdentity(key: entry.app, source: .appName)
        let shown = OwnNotification.shown(.copy, request, app: app, context: policyContext())
        var copyKept = kept ?? KeptRequest(appName: entry.app, appSource: app.source.rawValue)
        copyKept.actions = []
        copyKept.trace = ["shown again by focusctl show: a copy of notification \(id), from history"]
        record(HistoryEntry(id: copy, app: entry.app, summary: entry.summary, body: entry.body, level: shown.level,
                            decision: .delivered, received: clock.now,
                            steps: [FateStep(.copyOf, at: clock.now, number: id)], kept: copyKept, via: entry.via))
        commit.noteFate(id, FateStep(.shownAgain, at: clock.now, number: copy))
        deliver(copy, .fdo(NotifyArguments(rebuilding: request)), shown, holders: [ownCaller], processID: nil, counts: false)
        stateChanged()
        return FateActionReport(action: "show", ids: [id], copy: copy,
                                message: "Notification \(id) (\(entry.app)) is shown again as notification \(copy), "
                                    + "from history (without its actions and images).")
    }

    // MARK: dismiss

    /// Dismisses held notification `id`: its holders are told (`NotificationClosed`, reason 2).
    func dismiss(_ id: UInt32) throws -> FateActionReport {
        guard id != 0, let item = ledger.held[id] else {
            guard id != 0, let entry = try store.entry(id: id) else { throw Self.unknown(id) }
            throw Refused(description: "notification \(id) (\(entry.app)) is not held (\(entry.fate())); "
                + "focusctl dismiss ends held notifications only.")
        }
        perform(ledger.transition(.dismiss(id), now: clock.now))
        return FateActionReport(action: "dismiss", ids: [id],
                                message: "Notification \(id) (\(item.app)), \(item.reason.waiting(now: clock.now)), was dismissed; "
                                    + "its app was told (NotificationClosed, reason 2).")
    }

    /// Dismisses every held notification, waiting or in a digest.
    func dismissAllHeld() -> FateActionReport {
        let items = ledger.held.all
        guard !items.isEmpty else {
            return FateActionReport(action: "dismiss", ids: [], message: "Nothing was held; nothing was dismissed.")
        }
        perform(ledger.transition(.dismissAll, now: clock.now))
        let n = items.count
        return FateActionReport(action: "dismiss", ids: items.map(\.id),
                                message: "\(n) held notification\(n == 1 ? " was" : "s were") dismissed; "
                                    + "\(n == 1 ? "its app was" : "their apps were") told (NotificationClosed, reason 2).")
    }

    // MARK: digest show-all

    /// Does what Show All on digest `digestID` does (0: the newest digest still open).
    func showAll(digest digestID: UInt32) throws -> FateActionReport {
        let open = ledger.held.openDigests()
        guard let target = digestID == 0 ? open.keys.max() : digestID, let items = open[target] else {
            if digestID != 0 {
                throw Refused(description: "digest \(digestID) is not open (it stands for no held notification now); "
                    + (open.isEmpty ? "no digest is open." : "open: \(open.keys.sorted().map(String.init).joined(separator: ", "))."))
            }
            let waiting = ledger.held.count
            return FateActionReport(action: "show-all", ids: [],
                                    message: "No digest is open; nothing was shown"
                                        + (waiting == 0 ? "." : " (\(waiting) held, in no digest yet: focusctl show ID shows one)."))
        }
        digestAction(target, key: Digest.showAllKey)
        let n = items.count
        return FateActionReport(action: "show-all", ids: Digest.ordered(items).reversed().map(\.id), digest: target,
                                message: "Digest \(target): " + (n == 1 ? "its notification is shown now, as itself." : "\(n) notifications are shown now, each as itself."))
    }
}
