import FocusBridgeCore
import FocusBridgeDBus

/// The GTK door's calls: decoded by `GtkDoor`, planned and carried out as the fdo door's are,
/// shown through GNOME Shell's own GTK interface (`GtkShell`), a target of its own forwarder
/// (`gtkForwarder`) under the same rules as the daemon's. The app names each notification
/// itself (`GtkKeys`), hears nothing back, and is never sent the fdo door's signals.
extension Bridge {
    /// Serves the GTK door from now on, showing its notifications through `shell`.
    func serveGtk(_ shell: GtkShell) {
        let forwarder = Forwarder(target: shell, logger: logger)
        forwarder.events = self
        shell.ready = { [weak forwarder] in forwarder?.pump() }
        shell.names = { [weak self] id in self?.ledger.gtkKeys.names(of: id) }
        gtkForwarder = forwarder
        rememberHeldGtk()
    }

    /// The GTK notifications still held from before a restart, found again by their app and ID:
    /// their app may still replace or remove them.
    private func rememberHeldGtk() {
        for item in ledger.held.all where item.holders.contains(where: { $0.door == .gtk }) {
            guard let payload = try? store.heldPayload(item.id),
                  let arguments = GtkArguments(storedType: payload.type, bytes: payload.bytes) else { continue }
            perform(ledger.transition(.gtkNamed(item.id, appKey: item.app, appID: arguments.notification.appID,
                                                gtkID: arguments.notification.id), now: clock.now))
        }
    }

    /// `AddNotification`: one the app already gave this ID (and may still act on) is replaced;
    /// an app the shell could not show is refused as the shell refuses it, before anything is
    /// kept, so the app hears the same error whether it would be shown now or later.
    func addGtk(_ waiter: GtkWaiter, _ arguments: GtkArguments) {
        let appID = arguments.notification.appID
        guard desktopFiles.hasDesktopFile(appID) else {
            return waiter.fail(DBusError(name: GtkNotificationsInterface.invalidApp, message: "The app by ID \"\(appID)\" could not be found"))
        }
        senders.withSender(waiter.sender) { [self] sender in
            var caller = sender.caller(waiter.sender)
            caller.door = .gtk
            let process = sender.process
            let app = AppIdentity.resolve(arguments.request, process: process)
            let gtkID = arguments.notification.id
            let arguments = arguments.replacing(ledger.gtkKeys.id(appKey: app.key, id: gtkID) ?? 0)
            let plan = plan(arguments.request, app: app, payloadBytes: arguments.byteCount, caller: caller, process: process)
            perform(ledger.transition(.gtkNamed(plan.number, appKey: app.key, appID: appID, gtkID: gtkID), now: clock.now))
            execute(plan, .gtk(arguments), processID: process?.processID, waiter: waiter)
        }
    }

    /// `RemoveNotification`: a held one ends unseen; a shown one is taken off the shell. Either
    /// ends as closed by the app. One the caller may not act on, or that is not known, is left
    /// alone (answered all the same, as the shell answers).
    func removeGtk(_ call: IncomingCall, appID: String, id gtkID: String) {
        senders.withSender(call.sender) { [self] sender in
            defer { call.reply() }
            var caller = sender.caller(call.sender)
            caller.door = .gtk
            let app = AppIdentity.resolve(GtkNotification(appID: appID, id: gtkID).request(), process: sender.process)
            guard let id = ledger.gtkKeys.id(appKey: app.key, id: gtkID) else { return }
            perform(ledger.transition(.closedByApp(id, by: caller), now: clock.now))
        }
    }
}
