import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop

/// The "N more from App" notifications: one per app over its rate limit, counting what it
/// collapsed, replacing itself as the count grows (focus-bridge.toml(5), `rate-limit`). Its
/// members are tracked in the `NotificationTable` (`collapsedInto`) and end when it does.
final class FloodCollapse {
    /// How many apps may have a "more from" notification counting at once.
    static let maxGroups = 1024
    static let updateMilliseconds: UInt32 = 250

    /// Per app: its "N more" notification, how many it counts and the latest one's summary.
    private var groups: [String: (id: UInt32, count: Int, latest: String)] = [:]
    private var timers: [String: SourceID] = [:]
    /// Shows (or updates) the "N more" notification `id` of `app` (passive, held by the bridge).
    var show: (_ id: UInt32, _ app: AppIdentity, _ arguments: NotifyArguments) -> Void = { _, _, _ in }

    /// The ID of the app's "N more" notification, made on its first collapsed notification.
    func group(for app: AppIdentity, newID: () -> UInt32) -> UInt32 {
        let key = app.key.lowercased()
        if let entry = groups[key] { return entry.id }
        let id = newID()
        if groups.count >= Self.maxGroups, let oldest = groups.min(by: { $0.value.id < $1.value.id }) {
            // Bounded whatever app names arrive: the oldest app starts a new "more from" next time;
            // what its old one counted still ends with it (the table knows).
            groups[oldest.key] = nil
        }
        groups[key] = (id: id, count: 0, latest: "")
        return id
    }

    /// Counts one more collapsed notification of `app`, whose latest summary was `latest`.
    func count(_ app: AppIdentity, appName: String, icon: String, latest: String) {
        let key = app.key.lowercased()
        guard var entry = groups[key] else { return }
        entry.count += 1
        entry.latest = latest
        groups[key] = entry
        // The first right away, then at most a few updates a second: a flood must not become a
        // flood of updates to the daemon.
        if entry.count == 1 {
            update(app, appName: appName, icon: icon)
        } else if timers[key] == nil {
            // The update shows the count and the latest summary when it fires, not when it was set.
            timers[key] = MainLoop.after(milliseconds: Self.updateMilliseconds) { [weak self] in
                self?.timers[key] = nil
                self?.update(app, appName: appName, icon: icon)
            }
        }
    }

    /// The "N more" notification `id` ended: its app starts a new one next time.
    func ended(_ id: UInt32) {
        groups = groups.filter { $0.value.id != id }
    }

    private func update(_ app: AppIdentity, appName: String, icon: String) {
        guard let entry = groups[app.key.lowercased()] else { return }
        let latest = entry.latest
        let title = "\(entry.count) more from \(app.key)"
        show(entry.id, app, .own(appName: appName, appIcon: icon, summary: title, body: latest))
    }
}
