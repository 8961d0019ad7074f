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
/// (Telegram, Thunderbird) is left alone from then on — the app itself: an `Update` is taken
/// from a connection or process that sent notifications counted for that desktop ID, or from a
/// process whose sandbox or systemd scope names it. Any other connection can send an `Update`
/// naming any app; the bridge keeps that app's badge, so that nobody else can blank it.
final class Badges {
    static let path = "/org/focusbridge/LauncherEntry"
    static let interface = "com.canonical.Unity.LauncherEntry"

    private let bus: VariantConnection
    private let logger: Logger
    private var counts = BadgeCounts()
    private var settings: PolicySettings
    private var desktopEntries = DesktopEntries()
    private var scheduled = false
    private let directory: SenderDirectory
    /// The connections and processes that sent the notifications counted for each desktop ID
    /// (lowercased), the latest few: those an `Update` for that app is taken from.
    private var sources: [String: Sources] = [:]
    /// Desktop IDs an `Update` from someone else was said in the log for (once each).
    private var saidIgnored: Set<String> = []

    struct Sources {
        var connections: [String] = []
        var processIDs: [UInt32] = []
        static let kept = 4

        mutating func add(connection: String?, processID: UInt32?) {
            if let connection, !connections.contains(connection) { connections.append(connection) }
            if let processID, !processIDs.contains(processID) { processIDs.append(processID) }
            if connections.count > Self.kept { connections.removeFirst() }
            if processIDs.count > Self.kept { processIDs.removeFirst() }
        }
    }

    /// Desktop IDs whose sources are remembered; past that the memory starts over (an app then
    /// is yielded to after its next notification).
    static let maxSources = 512

    init(bus: VariantConnection, senders: SenderDirectory, settings: PolicySettings, logger: Logger) {
        self.bus = bus
        directory = senders
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

    /// A notification was delivered, held or counted in an "N more" notification, sent by
    /// `senders` (their connections) from the process `processID`.
    func counted(_ id: UInt32, app: AppIdentity, senders: [Caller] = [], processID: UInt32? = nil) {
        guard settings.general.badges, app.key != Bridge.ownAppName, settings.table(for: app)?.rule.badges ?? true,
              let desktopID = desktopID(of: app) else { return }
        counts.add(id, desktopID: desktopID, appKey: app.key)
        let key = desktopID.lowercased()
        if sources[key] == nil && sources.count >= Self.maxSources { sources.removeAll() }
        for sender in senders.suffix(Sources.kept) { sources[key, default: Sources()].add(connection: sender.connection, processID: nil) }
        sources[key, default: Sources()].add(connection: nil, processID: processID)
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
        // A web page's count is its browser's (a dock shows the browser).
        case .site: return app.via.flatMap { $0.isEmpty ? nil : $0 }
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

    /// Another connection published a launcher entry: when it is the app's own, that app badges
    /// itself; anyone else's is ignored (said once per app).
    private func someoneUpdated(_ signal: Signal) {
        guard signal.sender != bus.uniqueName, signal.parameters.typeString == "(sa{sv})",
              let uri = signal.parameters.child(0).string,
              let desktopID = BadgeCounts.desktopID(fromURI: KeptText.appKey(uri)),
              !counts.publishesItself(desktopID) else { return }
        let key = desktopID.lowercased(), connection = signal.sender
        if sources[key]?.connections.contains(connection) == true { return stepBack(desktopID, connection) }
        directory.withSender(connection) { [weak self] sender in
            guard let self else { return }
            let process = sender.process
            let own = process.map { process in
                sources[key]?.processIDs.contains(process.processID) == true || process.desktopID?.lowercased() == key
            } ?? false
            if own { return stepBack(desktopID, connection) }
            guard !saidIgnored.contains(key) else { return }
            if saidIgnored.count >= Self.maxSources { saidIgnored.removeAll() }
            saidIgnored.insert(key)
            let pid = process.map { " (PID \($0.processID))" } ?? ""
            logger.info("an Update for \(desktopID.escapingControlCharacters) from \(connection)\(pid), not a connection or process of that app, is ignored; focus-bridge keeps its badge")
        }
    }

    private func stepBack(_ desktopID: String, _ connection: String) {
        if counts.stepBack(desktopID) {
            logger.info("\(desktopID.escapingControlCharacters) publishes its own badge (\(connection)); focus-bridge leaves it alone")
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

    /// Whether desktop ID `id` is installed now, as GLib finds it: `ID.desktop` in a folder, or
    /// in a subfolder named by the ID's part before a dash (`kde-org.foo` in `kde/org.foo.desktop`).
    /// Not remembered: an app installed a moment ago is found.
    func hasDesktopFile(_ id: String) -> Bool {
        guard !id.isEmpty, !id.contains("/"), !id.hasPrefix(".") else { return false }
        var candidates = [id + ".desktop"]
        for dash in id.indices where id[dash] == "-" {
            candidates.append(id[..<dash] + "/" + id[id.index(after: dash)...] + ".desktop")
        }
        return folders.contains { folder in candidates.contains { FileStatus.exists(folder + $0) } }
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
