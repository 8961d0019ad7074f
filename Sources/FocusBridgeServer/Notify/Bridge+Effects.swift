import FocusBridgeCore
import FocusBridgeStore

/// The ledger's effects carried out, each one way: the store, the forwarder, the apps, history.
/// Nothing here decides; what an effect means is `NotificationLedger.Effect`'s.
extension Bridge {
    /// `arguments`: what a `forward` sends (the replay's, read from the ledger or the store).
    func perform(_ effects: [NotificationLedger.Effect], arguments: DoorArguments? = nil) {
        for effect in effects { perform(effect, arguments: arguments) }
    }

    private func perform(_ effect: NotificationLedger.Effect, arguments: DoorArguments?) {
        switch effect {
        case .forward(let item, let shown, let counts):
            guard let arguments else { return logger.error("notification \(item.id) to forward without its arguments") }
            deliver(item.id, arguments, shown, holders: item.holders, processID: item.processID, counts: counts)
        case .storeHold(let item, let payload):
            commit.hold(Store.Hold(item: item, payloadType: payload.type, payload: payload.bytes))
        case .storeRelease(let ids):
            // One not written yet is never written.
            commit.withdrawHolds(Set(ids))
            updateHeld { try store.removeHeld(ids) }
        case .storeReason(let id, let reason):
            commit.rehold(id, reason: reason)
            updateHeld { try store.setHeldReason(id, reason) }
        case .storeDigest(let ids, let digest):
            do { try store.assignDigest(ids, digest: digest) } catch {
                logger.error("cannot record the digest: \(oneLine(error))")
            }
        case .closeOnDaemon(let id):
            forwarder.close(id)
        case .closeOnDaemonNow(let id):
            forwarder.closeNow(id)
        case .removeFromShell(let id, let name):
            // What still waits for the shell never goes; what it may show is removed there.
            if let gtkForwarder, gtkForwarder.withdraw(id), let name {
                gtkForwarder.target.remove(appID: name.appID, id: name.id)
            }
        case .takeOffScreen(let id):
            // Its daemon ID is forgotten first: the daemon's `NotificationClosed` then reaches no one.
            guard let daemonID = forwarder.daemonIDs.daemonID(of: id) else { return }
            forwarder.forget(id)
            downstream.close(daemonID: daemonID, bridgeID: id)
        case .forgetDaemonID(let id):
            forwarder.forget(id)
            gtkForwarder?.forget(id)
        case .forgetRecent(let id):
            tables.closed(id)
        case .ended(let id, let reason, let holders):
            ended(id, reason: reason, holders: holders)
        case .endedMany(let items, let reason):
            endedMany(items, reason: reason)
        case .actionInvoked(let id, let key, let holders):
            // The person acted on it (its outcome in history): an action of its app, the default included.
            commit.noteActed(id, at: clock.now)
            signals.actionInvoked(id, key: key, to: holders)
        case .passOn(let id, let member, let text, let holders, let acted):
            if acted { commit.noteActed(id, at: clock.now) }
            signals.passOn(member, id, text: text, to: holders)
        case .ownAction(let id, let key):
            ownAction(id, key: key)
        case .quickAction(let action, let entry):
            quickAction(action, on: entry)
        case .ownEnded(let id):
            preferences.questionEnded(id)
            collapses.ended(id)
        case .sendDigest(let id, let digest):
            sendOwn(id, title: digest.title, body: digest.body, actions: digest.actions)
        case .noteFate(let id, let step):
            commit.noteFate(id, step)
        case .feedReplays:
            feedReplays()
        case .armSnoozes:
            armSnoozes()
        case .changed:
            stateChanged()
        case .info(let line):
            logger.info("\(line)")
        case .warning(let line):
            logger.warning("\(line)")
        }
    }

    /// A change of the held notifications in the store; a refusal is logged once per streak (the
    /// ledger keeps them meanwhile, and the commit keeps what was not written).
    private func updateHeld(_ change: () throws -> Void) {
        do { try change(); failures.succeeded("updating the held notifications") } catch {
            failures.failed("updating the held notifications", "cannot update the held notifications in the state database: \(oneLine(error))")
        }
    }
}
