import FocusBridgeCore
import FocusBridgeDBus
import Logging

/// What the daemon tells the bridge: it came or went, and its signals, sent back to the holders
/// of the bridge's IDs (docs/ARCHITECTURE.md, "Back").
extension Bridge: DownstreamEvents {
    func downstreamChanged() { stateChanged() }

    func downstreamReady() {
        forwarder.pump()
        stateChanged()
    }

    func downstreamGone() {
        let shown = forwarder.daemonGone().compactMap { holders.remove($0) }
        // The bridge's own notifications vanished with the daemon: digests' items wait again;
        // what a "more from" notification counted ends with it.
        let ownIDs = Set(shown.filter { $0.connections.contains(ownName) }.map(\.id))
        held.digestsGone(ownIDs)
        for id in ownIDs.sorted() { endMembers(of: id, reason: .undefined) }
        stateChanged()
        guard !shown.isEmpty else { return }
        logger.warning("the daemon went away; the \(Count.of(shown.count, "notification")) it showed reported closed")
        for entry in shown {
            tables.closed(entry.id)
            ended(entry.id, reason: .undefined, holders: entry.holders)
        }
    }

    func downstreamSignal(_ signal: DaemonSignal) {
        guard let id = forwarder.id(forDaemonID: signal.daemonID), let entry = holders[id] else { return }
        switch signal {
        case .closed(_, let reason):
            notificationClosed(entry.id, reason: reason)
        case .actionInvoked(_, let key):
            badges.read(entry.id)
            if let quick = QuickAction.action(forKey: key) { return quickAction(quick, on: entry) }
            if entry.connections.contains(ownName) { return ownAction(entry.id, key: key) }
            // The person acted on it (its outcome in history): an action of its app, the default included.
            commit.noteActed(entry.id, at: clock.now)
            signals.actionInvoked(entry.id, key: entry.clientKey(for: key), to: entry.connections)
        case .passOn(let member, _, let text):
            // An inline reply is an action too; an activation token only comes before one.
            if member == NotificationsInterface.notificationReplied, !entry.connections.contains(ownName) {
                commit.noteActed(entry.id, at: clock.now)
            }
            signals.passOn(member, entry.id, text: text, to: entry.connections)
        }
    }
}
