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
        perform(ledger.transition(.daemonGone(forwarder.daemonGone()), now: clock.now))
        stateChanged()
    }

    func downstreamSignal(_ signal: DaemonSignal) {
        guard let id = forwarder.id(forDaemonID: signal.daemonID), ledger.shown.contains(id) else { return }
        switch signal {
        case .closed(_, let reason):
            notificationClosed(id, reason: reason)
        case .actionInvoked(_, let key):
            badges.read(id)
            perform(ledger.transition(.action(id, key: key), now: clock.now))
        case .passOn(let member, _, let text):
            // An inline reply is an action too; an activation token only comes before one.
            perform(ledger.transition(.passOn(id, member: member, text: text,
                                              isReply: member == NotificationsInterface.notificationReplied), now: clock.now))
        }
    }
}
