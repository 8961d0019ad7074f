/// Which application a notification belongs to: the key config rules, ownership and history use.
public struct AppIdentity: Equatable, Sendable {
    public enum Source: String, Sendable {
        case desktopEntry = "desktop-entry hint"
        case appName = "app_name"
        case flatpak = "Flatpak app ID"
        case snap = "Snap name"
        case site = "site of the web page"
        case systemdScope = "systemd app scope"
        case executable = "executable"
        case unknown = "nothing"
    }

    /// Cut to `KeptText.maxAppKeyBytes`: the key is kept in many tables, and a longer one names
    /// no real application.
    public var key: String
    public var source: Source
    /// The desktop ID to fill in as `desktop-entry` when the client did not send one.
    public var inferredDesktopEntry: String?
    /// The `app_name` the person sees, when it differs from the key and the sender is not
    /// sandboxed: an `[apps]` table may name the app by it (Firefox ESR's `desktop-entry` is
    /// `firefox-esr`, its name `Firefox`). A sandboxed sender's name is only a claim, never set here.
    public var name: String?
    /// For a web page's notification (`site`): the browser that sent it, by its own app key
    /// (`chromium`), kept beside the site in history, `apps` and `explain`.
    public var via: String?

    public init(key: String, source: Source, inferredDesktopEntry: String? = nil, name: String? = nil, via: String? = nil) {
        self.key = KeptText.appKey(key)
        self.source = source
        self.inferredDesktopEntry = inferredDesktopEntry
        let name = name.map(KeptText.appKey)
        self.name = name.flatMap { $0.isEmpty || $0.lowercasedCheaply() == self.key.lowercasedCheaply() ? nil : $0 }
        self.via = via.map(KeptText.appKey)
    }

    /// Whether the key was read from the sandbox the sender runs in, not from what it claims.
    public var isSandboxed: Bool { source == .flatpak || source == .snap }

    /// Whether it is a web page's notification, its key the page's site (`BrowserPage`).
    public var isWebPage: Bool { source == .site }

    /// A web page's notification from a Chromium-family browser is its site's (`BrowserPage`),
    /// the browser beside it (`via`), when the sender is the browser: a sandbox that is the
    /// browser's, or an unsandboxed sender naming it; a sandboxed app that claims to be a browser
    /// is only itself. The site has no app name (the browser's would match the browser's
    /// `[apps]` table) and no desktop ID (the browser's window in front does not tell which
    /// site it shows). Otherwise the app of `sender(_:process:)`.
    public static func resolve(_ notification: NotificationRequest, process: ProcessIdentity?) -> AppIdentity {
        let sender = sender(notification, process: process)
        switch sender.source {
        case .desktopEntry, .appName, .flatpak, .snap:
            guard BrowserPage.isBrowser(sender.key), let site = BrowserPage.site(of: notification) else { return sender }
            return AppIdentity(key: site, source: .site, via: sender.key)
        default:
            return sender
        }
    }

    /// A held notification's app when it is shown at last: the site it was held under, when its
    /// request still names that site and comes from a browser (as `resolve` decides, with the
    /// sandbox of its sender, `Caller.sandbox`); else the key it was held under, with the app
    /// name it claimed unless a sandbox sent it.
    public static func held(key: String, request: NotificationRequest, sandbox: String?) -> AppIdentity {
        let page = resolve(request, process: sandbox.flatMap { ProcessIdentity(sandbox: $0) })
        if page.isWebPage && page.key == KeptText.appKey(key) { return page }
        return AppIdentity(key: key, source: .appName, name: sandbox == nil ? request.appName : nil)
    }

    /// The app of the sender itself. A sandboxed sender is its Flatpak ID or Snap name, whatever
    /// it claims (any process can send any `app_name` or `desktop-entry`; only the sandbox is not
    /// its to choose). Otherwise the `desktop-entry` hint, else `app_name`, else what the sending
    /// process tells.
    static func sender(_ notification: NotificationRequest, process: ProcessIdentity?) -> AppIdentity {
        let inferred = notification.desktopEntry == nil ? process?.desktopID : nil
        if let id = process?.flatpakID {
            return AppIdentity(key: id, source: .flatpak, inferredDesktopEntry: inferred)
        }
        if let name = process?.snapName {
            // A snap's desktop IDs are `NAME_APP` (or `NAME`): one of its own it may name, for
            // its badge and its window; another app's it may not.
            let own = notification.desktopEntry.flatMap { $0 == name || $0.hasPrefix(name + "_") ? $0 : nil }
            return AppIdentity(key: name, source: .snap, inferredDesktopEntry: own ?? inferred)
        }
        if let entry = notification.desktopEntry {
            return AppIdentity(key: entry, source: .desktopEntry, name: notification.appName)
        }
        if !notification.appName.isEmpty {
            return AppIdentity(key: notification.appName, source: .appName, inferredDesktopEntry: inferred)
        }
        if let id = process?.scopeAppID {
            return AppIdentity(key: id, source: .systemdScope, inferredDesktopEntry: inferred)
        }
        if let executable = process?.executable {
            return AppIdentity(key: executable, source: .executable)
        }
        return AppIdentity(key: "unknown", source: .unknown)
    }

    /// App keys compare without regard to case (`Slack` and `slack` are one app).
    public func isSameApp(as other: String) -> Bool { key.lowercased() == other.lowercased() }
}
