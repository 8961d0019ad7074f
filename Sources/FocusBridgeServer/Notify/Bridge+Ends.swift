import FocusBridgeCore
import FocusBridgeDBus

/// The one end of each ID's life (focus-bridge(1), BEHAVIOUR), as the ledger's `ended` and
/// `endedMany` effects say it: `NotificationClosed` to every holder, once, noted in history.
extension Bridge {
    /// The daemon's `NotificationClosed` for `id`, or the bridge gave it up: the ledger ends it.
    func notificationClosed(_ id: UInt32, reason: CloseReason) {
        perform(ledger.transition(.closed(id, reason), now: clock.now))
    }

    /// The end of many held notifications at once (a release): each is noted in history now;
    /// their holders are told a slice per pass of the main loop (`NotificationSignals.closedMany`).
    func endedMany(_ items: [HeldNotification], reason: CloseReason) {
        for item in items {
            badges.ended(item.id, reason: reason)
            commit.noteClosed(item.id, reason: reason, at: clock.now)
        }
        signals.closedMany(items.map { ($0.id, reason, $0.holders) })
    }

    /// The one end of an ID's life: `NotificationClosed` to each holder, noted in history.
    func ended(_ id: UInt32, reason: CloseReason, holders: [Caller]) {
        signals.closed(id, reason: reason, to: holders)
        badges.ended(id, reason: reason)
        commit.noteClosed(id, reason: reason, at: clock.now)
    }
}
