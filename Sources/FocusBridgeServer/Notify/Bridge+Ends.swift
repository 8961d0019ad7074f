import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop

/// The one end of each ID's life (focus-bridge(1), BEHAVIOUR): `NotificationClosed` to every
/// holder, once, noted in history — also for what the bridge's own notifications stood for.
extension Bridge {
    /// Tells every holder that its notification closed, and forgets it.
    func notificationClosed(_ id: UInt32, reason: CloseReason) {
        tables.closed(id)
        guard let entry = forget(id) else { return }
        // One of the bridge's own: what it stood for ends with it, for the same reason.
        if entry.connections.contains(ownName) { endMembers(of: id, reason: reason) }
        ended(id, reason: reason, holders: entry.holders)
    }

    /// Ends what the bridge's own notification `id` stood for: the held notifications of a
    /// digest (but those a Show All is replaying) and the notifications a "more from" counted.
    func endMembers(of id: UInt32, reason: CloseReason) {
        preferences.questionEnded(id)
        let items = held.members(ofDigest: id)
        held.remove(items.map(\.id))
        endedMany(items, reason: reason)
        collapses.ended(id)
        for member in holders.collapsed(into: id) {
            forget(member.id)
            ended(member.id, reason: reason, holders: member.holders)
        }
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

    /// Forgets `id`: who holds it, and the daemon's ID for it.
    @discardableResult
    func forget(_ id: UInt32) -> NotificationTable.Entry? {
        forwarder.forget(id)
        return holders.remove(id)
    }

    /// Tells the holders the table let go of (it stays bounded) that their notifications ended.
    func endDropped(_ dropped: [NotificationTable.Dropped]) {
        for item in dropped {
            // The whole ID went, not only some of its holders: its daemon ID goes too.
            if !holders.contains(item.id) { forwarder.forget(item.id) }
            ended(item.id, reason: .undefined, holders: item.holders)
        }
    }
}
