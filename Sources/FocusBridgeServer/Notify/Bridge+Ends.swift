import FocusBridgeCore
import FocusBridgeDBus

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
        for item in items { ended(item.id, reason: reason, holders: item.holders) }
        collapses.ended(id)
        for member in holders.collapsed(into: id) {
            forget(member.id)
            ended(member.id, reason: reason, holders: member.holders)
        }
    }

    /// The one end of an ID's life: `NotificationClosed` to each holder, noted in history.
    func ended(_ id: UInt32, reason: CloseReason, holders: [Caller]) {
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
