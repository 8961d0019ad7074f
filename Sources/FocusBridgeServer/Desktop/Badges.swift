import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import FocusBridgeSystem
import Logging

/// Publishes each app's unread count for docks on `com.canonical.Unity.LauncherEntry` (Plank,
/// Dash to Dock, KDE's task manager, Latte read it): `Update(application://ID.desktop,
/// {count, count-visible})`, at most one signal per app per main-loop pass. Counts are
/// `BadgeCounts`; what makes a notification unread is described there and in focus-bridge(1).
///
/// Only apps with a known desktop entry get a badge (a dock has nothing to put it on otherwise):
/// the `desktop-entry` hint, the desktop ID the sending process tells, or an app name that is
/// a desktop ID installed in the XDG data folders. An app that sends its own `Update` signals
/// (Telegram, Thunderbird) is left alone from then on.
final class Badges {
    static let path = "/org/focusbridge/LauncherEntry"
    static let interface = "com.canonical.Unity.LauncherEntry"

    private let bus: VariantConnection
    private let logger: Logger
    private var counts = BadgeCounts()
    private var settings: PolicySettings
    private var desktopEntries = DesktopEntries()
    private var scheduled = false

    init(bus: VariantConnection, settings: PolicySettings, logger: Logger) {
        self.bus = bus
        self.settings = settings
        self.logger = logger
        // Signals only: exported so that introspection shows what the bridge sends.
        try? bus.export(path: Self.path, interfaceXML: EmbeddedFiles.launcherEntryXML, interface: Self.interface) { call in
            call.fail(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(call.methodName)"))
        }
        bus.subscribe(interface: Self.interface, member: "Update") { [weak self] signal in
            self?.someoneUpdated(signal)
        }
    }

    /// The unread count of an app (for tests and the log).
    func count(desktopID: String) -> Int { counts.count(desktopID) }

    /// A notification was delivered, held or counted in an "N more" notification.
    func counted(_ id: UInt32, app: AppIdentity) {
        guard settings.general.badges, app.key != Bridge.ownAppName, settings.rule(forApp: app.key).badges,
              let desktopID = desktopID(of: app) else { return }
        counts.add(id, desktopID: desktopID, appKey: app.key)
        schedule()
    }

    /// The person acted on the notification.
    func read(_ id: UInt32) {
        counts.remove(id)
        schedule()
    }

    /// The notification's ID ended. One that expired, or that the daemon lost, was not read:
    /// it counts until the person focuses the app.
    func ended(_ id: UInt32, reason: CloseReason) {
        guard reason == .dismissed || reason == .closedByCall else { return }
        read(id)
    }

    /// The person focused the app (its window came to the front): what it had is seen.
    /// `appKey` is an app key or a desktop ID (case and a `.desktop` suffix do not matter).
    func appFocused(_ appKey: String) {
        counts.clear(app: appKey)
        schedule()
    }

    /// The configuration was reloaded: badges turned off (for all, or for an app) go to 0.
    func settingsChanged(_ settings: PolicySettings) {
        self.settings = settings
        counts.removeAll { [settings] _, appKey in !settings.general.badges || !settings.rule(forApp: appKey).badges }
        schedule()
    }

    private func desktopID(of app: AppIdentity) -> String? {
        switch app.source {
        case .desktopEntry, .flatpak: return app.key.isEmpty ? nil : app.key
        default:
            if let inferred = app.inferredDesktopEntry, !inferred.isEmpty { return inferred }
            return desktopEntries.installedID(app.key)
        }
    }

    private func schedule() {
        guard counts.hasChanges, !scheduled else { return }
        scheduled = true
        MainLoop.whenIdle { [weak self] in
            guard let self else { return }
            scheduled = false
            for update in counts.takeUpdates() {
                bus.emitSignal(destination: nil, path: Self.path, interface: Self.interface, name: "Update", .tuple([
                    .string(update.appURI),
                    .dictionary([("count", .int64(Int64(update.count))), ("count-visible", .bool(update.count > 0))]),
                ]))
            }
        }
    }

    /// Another connection published a launcher entry: that app badges itself.
    private func someoneUpdated(_ signal: Signal) {
        guard signal.sender != bus.uniqueName, signal.parameters.typeString == "(sa{sv})",
              let uri = signal.parameters.child(0).string,
              let desktopID = BadgeCounts.desktopID(fromURI: KeptText.appKey(uri)) else { return }
        if counts.stepBack(desktopID) {
            logger.info("\(desktopID) publishes its own badge (\(signal.sender)); focus-bridge leaves it alone")
        }
    }
}

/// Which app keys are desktop IDs installed in the XDG data folders
/// (`$XDG_DATA_HOME/applications`, each of `$XDG_DATA_DIRS`'s `applications`), remembered for
/// at most `capacity` keys.
struct DesktopEntries {
    static let capacity = 512
    private var known: [String: String?] = [:]
    private let folders: [String]

    init(environment: [String: String] = Environment.all) {
        let home = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? Environment.homeDirectory) + "/.local/share"
        let dirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        folders = ([home] + dirs.split(separator: ":").map(String.init)).filter { $0.hasPrefix("/") }
            .map { $0 + "/applications/" }
    }

    /// The desktop ID for `key` if `KEY.desktop` (or its lowercase form) is installed.
    mutating func installedID(_ key: String) -> String? {
        if let answer = known[key] { return answer }
        var found: String?
        if !key.isEmpty, !key.contains("/"), !key.hasPrefix(".") {
            let id = key
            found = [id, id.lowercased()].first { candidate in
                folders.contains { FileStatus.exists($0 + candidate + ".desktop") }
            }
        }
        if known.count >= Self.capacity { known.removeAll() }
        known[key] = .some(found)
        return found
    }
}
