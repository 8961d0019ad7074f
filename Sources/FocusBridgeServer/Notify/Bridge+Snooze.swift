import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import FocusBridgeStore
import FocusBridgeTime

/// Snooze (focus-bridge(1), SNOOZE): a notification on screen leaves it for a while and comes
/// back as itself, under its own ID. Its app is not told: no `NotificationClosed`, so the ID
/// stays alive and the app may still replace it (the update waits with it) or close it (it ends
/// as any held one). It is held durably as `.snooze(until:)`, its arguments rebuilt from what
/// history keeps; one wall-clock timer waits for the first end. Each change is a transition of
/// the ledger (`snoozed`, `snoozeMoved`, `snoozesDue`); what is checked here is what only the
/// bridge can see: the daemon's ID and history.
extension Bridge {
    /// Snoozes notification `id` for `seconds`: one on screen leaves it, one snoozed already is
    /// snoozed until the new end.
    func snooze(_ id: UInt32, seconds: Double) throws -> FateActionReport {
        if let problem = SnoozeLength.problem(seconds) { throw Refused(description: problem + ".") }
        let until = clock.now.addingTimeInterval(seconds)
        if id != 0, let item = ledger.held[id] {
            guard item.reason.snoozedUntil != nil else {
                throw Refused(description: "notification \(id) (\(item.app)) is not on screen: it is \(item.reason.waiting(now: clock.now)); "
                    + "focusctl show \(id) shows it now.")
            }
            perform(ledger.transition(.snoozeMoved(id, until: until), now: clock.now))
        } else {
            guard id != 0, let entry = ledger.shown[id] else {
                guard id != 0, let row = try store.entry(id: id) else { throw Self.unknown(id) }
                throw Refused(description: "notification \(id) (\(row.app)) is not on screen (\(row.fate())); "
                    + "focusctl snooze takes one that is shown now.")
            }
            try snoozeShown(entry, until: until)
        }
        let app = ledger.held[id]?.app ?? ""
        return FateActionReport(action: "snooze", ids: [id], until: Timestamp.string(until),
                                message: "Notification \(id) (\(app)) is snoozed until \(Fate.localTime(until, now: clock.now)): "
                                    + "off the screen, its app not told; it is shown again as itself then "
                                    + "(focusctl show \(id) shows it sooner).")
    }

    /// The quick action: an hour off the screen; it does nothing to what cannot be snoozed
    /// (the daemon closes its copy as it always does after an action).
    func snoozeHour(_ entry: NotificationTable.Entry) {
        do {
            try snoozeShown(entry, until: clock.now.addingTimeInterval(SnoozeLength.standard))
        } catch {
            logger.info("notification \(entry.id) cannot be snoozed: \(oneLine(error))")
        }
    }

    /// Takes shown notification `entry` off the daemon's screen and holds it until `until`.
    private func snoozeShown(_ entry: NotificationTable.Entry, until: Instant) throws {
        let id = entry.id
        guard !entry.connections.contains(ownName) else {
            throw Refused(description: "notification \(id) is FocusBridge's own; it is not snoozed.")
        }
        guard entry.collapsedInto == nil else {
            throw Refused(description: "notification \(id) (\(entry.appKey)) is counted in notification \(entry.collapsedInto!) "
                + "(\"more from\"), not shown on its own; it is not snoozed.")
        }
        guard forwarder.daemonIDs.daemonID(of: id) != nil else {
            throw Refused(description: "notification \(id) (\(entry.appKey)) is not on the daemon's screen yet; try again in a moment.")
        }
        guard let row = try store.entry(id: id), let kept = row.kept else {
            throw Refused(description: "notification \(id) (\(entry.appKey)) is not in history yet; try again in a moment.")
        }
        guard kept.door != .gtk else {
            throw Refused(description: "notification \(id) (\(entry.appKey)) came by org.gtk.Notifications: GNOME Shell keeps it "
                + "in its own list, where it stays; it is not snoozed.")
        }
        var request = kept.notification(summary: row.summary, body: row.body)
        request.replacesID = 0
        let arguments = NotifyArguments(rebuilding: request)
        let item = HeldNotification(id: id, reason: .snooze(until: until), app: row.app, summary: row.summary, body: row.body,
                                    level: row.level, relevance: HeldNotification.relevance(of: request),
                                    received: row.received, holders: entry.holders, processID: nil)
        perform(ledger.transition(.snoozed(item, payload: DoorArguments.fdo(arguments).payload), now: clock.now))
    }

    /// Arms the timer for the first snooze to end (at start, after every change).
    func armSnoozes() {
        guard let next = ledger.held.nextSnoozeEnd else {
            snoozeTimer?.schedule(atSecondsSince1970: nil)
            return
        }
        if snoozeTimer == nil { snoozeTimer = WallClockTimer { [weak self] in self?.snoozesEnded() } }
        snoozeTimer?.schedule(atSecondsSince1970: next.timeIntervalSince1970)
    }

    /// The snoozes that ended go out as themselves, through the replay (`feedReplays`), which
    /// holds one again for the Focus on now or the summary when they would hold it.
    func snoozesEnded() {
        perform(ledger.transition(.snoozesDue, now: clock.now))
        stateChanged()
    }
}
