import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop

/// The one end of each ID's life (focus-bridge(1), BEHAVIOUR), as the ledger's `ended` and
/// `endedMany` effects say it: `NotificationClosed` to every holder, once, noted in history.
extension Bridge {
    /// The daemon's `NotificationClosed` for `id`, or the bridge gave it up: the ledger ends it.
    func notificationClosed(_ id: UInt32, reason: CloseReason) {
        perform(ledger.transition(.closed(id, reason), now: clock.now))
    }

    static let closingsPerPass = 256

    /// The end of many held notifications at once (a release): each is noted in history now;
    /// their holders are told `closingsPerPass` per pass of the main loop, so the replies and
    /// signals of other calls go out between them.
    func endedMany(_ items: [HeldNotification], reason: CloseReason) {
        for item in items {
            gtkKeys.forget(item.id)
            badges.ended(item.id, reason: reason)
            commit.noteClosed(item.id, reason: reason, at: clock.now)
        }
        closingBacklog.append(contentsOf: items.map { ($0.id, reason, $0.holders) })
        tellClosings()
    }

    /// Tells the next holders of the backlog; what is left waits for the loop to be idle
    /// (the signals already sent written out first).
    private func tellClosings() {
        var told = 0
        while closingStart < closingBacklog.count, told < Self.closingsPerPass {
            let closing = closingBacklog[closingStart]
            closingStart += 1
            told += 1
            signals.closed(closing.id, reason: closing.reason, to: closing.holders)
        }
        guard closingStart < closingBacklog.count else {
            closingBacklog = []
            closingStart = 0
            return
        }
        guard !closingScheduled else { return }
        closingScheduled = true
        MainLoop.whenIdle { [weak self] in
            guard let self else { return }
            closingScheduled = false
            tellClosings()
        }
    }

    /// The one end of an ID's life: `NotificationClosed` to each holder, noted in history.
    func ended(_ id: UInt32, reason: CloseReason, holders: [Caller]) {
        gtkKeys.forget(id)
        signals.closed(id, reason: reason, to: holders)
        badges.ended(id, reason: reason)
        commit.noteClosed(id, reason: reason, at: clock.now)
    }
}
