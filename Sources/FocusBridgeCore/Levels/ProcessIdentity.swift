/// Who a sending process is, read from what Linux tells about it (`/proc/PID/…`).
///
/// The reading of files is the caller's; this type only interprets their text, so it can be
/// tested with any process's files.
public struct ProcessIdentity: Equatable, Sendable {
    public var processID: UInt32
    /// The Flatpak application ID (`[Application] name=` of `/.flatpak-info`).
    public var flatpakID: String?
    /// The application ID of a systemd app scope or service (`app-gnome-org.gnome.Evolution-12.scope`).
    public var scopeAppID: String?
    /// The snap the process runs in (`snap.NAME.APP…` in its cgroup).
    public var snapName: String?
    /// The executable's file name.
    public var executable: String?

    public init(processID: UInt32, flatpakID: String? = nil, scopeAppID: String? = nil, snapName: String? = nil,
                executable: String? = nil) {
        self.processID = processID
        self.flatpakID = flatpakID
        self.scopeAppID = scopeAppID
        self.snapName = snapName
        self.executable = executable
    }

    /// Builds the identity from the texts of `/proc/PID/root/.flatpak-info`, `/proc/PID/cgroup`
    /// and the target of `/proc/PID/exe` (each nil when unreadable).
    public init(processID: UInt32, flatpakInfo: String?, cgroup: String?, executablePath: String?) {
        self.init(processID: processID,
                  flatpakID: flatpakInfo.flatMap(Self.flatpakID(fromInfo:)),
                  scopeAppID: cgroup.flatMap(Self.scopeAppID(fromCgroup:)),
                  snapName: cgroup.flatMap(Self.snapName(fromCgroup:)),
                  executable: executablePath.flatMap(Self.fileName))
    }

    /// The desktop ID this process runs as, when the system tells one.
    public var desktopID: String? { flatpakID ?? scopeAppID }

    /// The sandbox identity ownership follows: read from the process, never from what it claims.
    public var sandbox: String? {
        // Kept as one word: the store separates fields by spaces.
        func word(_ text: String) -> String { String(text.map { $0.isWhitespace ? "_" : $0 }) }
        if let flatpakID { return "flatpak:" + word(flatpakID) }
        if let snapName { return "snap:" + word(snapName) }
        return nil
    }

    /// The sandbox a `sandbox` text names (`flatpak:ID`, `snap:NAME`), for a sender known only
    /// by it (a held notification's holder); nil for any other text.
    public init?(sandbox: String) {
        if sandbox.hasPrefix("flatpak:"), sandbox.count > 8 {
            self.init(processID: 0, flatpakID: String(sandbox.dropFirst(8)))
        } else if sandbox.hasPrefix("snap:"), sandbox.count > 5 {
            self.init(processID: 0, snapName: String(sandbox.dropFirst(5)))
        } else {
            return nil
        }
    }

    /// The snap name of the last `snap.NAME.…` unit in the cgroup path (snapd runs every snap
    /// app in `snap.NAME.APP-UUID.scope` or `snap.NAME.APP.service`).
    static func snapName(fromCgroup text: String) -> String? {
        let units = text.split(whereSeparator: \.isNewline)
            .flatMap { $0.split(separator: "/") }
            .filter { $0.hasPrefix("snap.") && ($0.hasSuffix(".scope") || $0.hasSuffix(".service")) }
        guard let unit = units.last else { return nil }
        let name = unit.dropFirst("snap.".count).prefix { $0 != "." }
        return name.isEmpty ? nil : String(name)
    }

    static func flatpakID(fromInfo text: String) -> String? {
        var inApplication = false
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingBlanks()
            if line.hasPrefix("[") {
                inApplication = line == "[Application]"
            } else if inApplication, line.hasPrefix("name=") {
                let name = String(line.dropFirst("name=".count))
                return name.isEmpty ? nil : name
            }
        }
        return nil
    }

    /// Reads the systemd unit name of the XDG convention
    /// `app[-LAUNCHER]-APPID[@RANDOM].service` or `app[-LAUNCHER]-APPID-RANDOM.scope`
    /// from the last `app-` unit in the cgroup path.
    static func scopeAppID(fromCgroup text: String) -> String? {
        let units = text.split(whereSeparator: \.isNewline)
            .flatMap { $0.split(separator: "/") }
            .filter { $0.hasPrefix("app-") && ($0.hasSuffix(".scope") || $0.hasSuffix(".service")) }
        guard let unit = units.last else { return nil }
        var name = Substring(unit.dropFirst("app-".count))
        if name.hasSuffix(".scope") {
            name = name.dropLast(".scope".count)
            guard let dash = name.lastIndex(of: "-") else { return nil }
            name = name[..<dash]
        } else {
            name = name.dropLast(".service".count)
            if let at = name.firstIndex(of: "@") { name = name[..<at] }
        }
        // An application ID holds no dash (systemd escapes it as \x2d); a dash ends the launcher.
        if let dash = name.firstIndex(of: "-") { name = name[name.index(after: dash)...] }
        let appID = String(name.replacing("\\x2d", with: "-"))
        return appID.isEmpty ? nil : appID
    }

    private static func fileName(_ path: String) -> String? {
        let trimmed = path.hasSuffix(" (deleted)") ? String(path.dropLast(" (deleted)".count)) : path
        let name = trimmed.split(separator: "/").last.map(String.init) ?? ""
        return name.isEmpty ? nil : name
    }
}
