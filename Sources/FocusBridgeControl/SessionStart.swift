import FocusBridgeCore
import FocusBridgeSystem

/// What starts programs in this session, as focusctl reads it: a user systemd manager or not, a
/// desktop whose session manager runs XDG autostart entries, or a window manager that runs the
/// `exec` lines of its own configuration. Every hint focusctl gives about starting focus-bridge
/// (`status` when it is not running, `doctor`) is based on it: no `systemctl --user` where no
/// user manager runs, no autostart entry where a window manager never reads one.
public enum SessionKind: Equatable, Sendable {
    /// A desktop whose session runs XDG autostart entries (GNOME, Plasma, Xfce, LXQt, MATE, …).
    case desktop(String)
    /// A window manager that starts what its own configuration says (`exec focus-bridge`).
    case windowManager(String)
    /// Neither is known (no variable names one).
    case unknown

    /// The desktops, by the word `XDG_CURRENT_DESKTOP` uses (lower-cased), with their names.
    static let desktops: [(word: String, name: String)] = [
        ("gnome", "GNOME"), ("kde", "Plasma"), ("xfce", "Xfce"), ("lxqt", "LXQt"), ("lxde", "LXDE"),
        ("mate", "MATE"), ("x-cinnamon", "Cinnamon"), ("cinnamon", "Cinnamon"), ("budgie", "Budgie"),
        ("unity", "Unity"), ("pantheon", "Pantheon"), ("deepin", "Deepin"), ("enlightenment", "Enlightenment"),
        ("openbox", "Openbox"),
    ]
    /// Window managers that run their own start-up lines and no autostart entries.
    static let windowManagers = ["sway", "i3", "hyprland", "bspwm", "river", "qtile", "herbstluftwm", "awesome",
                                 "dwm", "xmonad", "wayfire", "niri", "labwc", "dwl", "spectrwm", "fluxbox", "icewm"]

    /// Reads the session from its environment: the compositors' own sockets first (sway and
    /// Hyprland set them for what they start; i3 sets I3SOCK), then `XDG_CURRENT_DESKTOP`,
    /// `XDG_SESSION_DESKTOP` and `DESKTOP_SESSION`.
    public init(environment: [String: String]) {
        func set(_ key: String) -> Bool { !(environment[key] ?? "").isEmpty }
        if set("SWAYSOCK") { self = .windowManager("sway"); return }
        if set("HYPRLAND_INSTANCE_SIGNATURE") { self = .windowManager("hyprland"); return }
        if set("I3SOCK") { self = .windowManager("i3"); return }
        let words = ["XDG_CURRENT_DESKTOP", "XDG_SESSION_DESKTOP", "DESKTOP_SESSION"]
            .flatMap { (environment[$0] ?? "").lowercased().split(separator: ":").map(String.init) }
        for word in words {
            if let desktop = Self.desktops.first(where: { $0.word == word || word.hasPrefix($0.word + "-") && $0.word != "gnome" }) {
                self = .desktop(desktop.name)
                return
            }
            if Self.windowManagers.contains(word) {
                self = .windowManager(word)
                return
            }
        }
        // GNOME Flashback and GNOME Classic say GNOME-Flashback:GNOME: a desktop all the same.
        if words.contains(where: { $0.hasPrefix("gnome") }) { self = .desktop("GNOME"); return }
        self = .unknown
    }

    /// Whether the session runs XDG autostart entries.
    public var readsAutostart: Bool {
        if case .desktop = self { return true }
        return false
    }

    /// `sway`, `GNOME`, or `your session`.
    public var name: String {
        switch self {
        case .desktop(let name), .windowManager(let name): name
        case .unknown: "your session"
        }
    }
}

/// A file in which a window manager (or X's start-up) runs programs at login.
public struct StartFile: Equatable, Sendable {
    public let path: String
    /// The first words of the lines that run a program (`exec`, `exec_always`); empty for a
    /// shell script, where every line may.
    public let commandWords: [String]
    /// The line that starts focus-bridge there.
    public let line: String

    public init(path: String, commandWords: [String], line: String) {
        self.path = path
        self.commandWords = commandWords
        self.line = line
    }

    /// The files read at login for `kind`, most specific first: the window manager's own
    /// configuration, then X's start-up scripts (`~/.xinitrc`, `~/.xsession`, `~/.xprofile`),
    /// which any window manager started by `startx` or a display manager runs.
    public static func candidates(for kind: SessionKind, environment: [String: String]) -> [StartFile] {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        var files: [StartFile] = []
        if case .desktop = kind { return files }
        let sway = ["exec", "exec_always"]
        let manager: String? = if case .windowManager(let name) = kind { name } else { nil }
        if manager == nil || manager == "sway" {
            files.append(StartFile(path: config + "/sway/config", commandWords: sway, line: "exec focus-bridge"))
        }
        if manager == nil || manager == "i3" {
            files.append(StartFile(path: config + "/i3/config", commandWords: sway, line: "exec --no-startup-id focus-bridge"))
            files.append(StartFile(path: home + "/.i3/config", commandWords: sway, line: "exec --no-startup-id focus-bridge"))
        }
        if manager == nil || manager == "hyprland" {
            files.append(StartFile(path: config + "/hypr/hyprland.conf", commandWords: ["exec-once", "exec"],
                                   line: "exec-once = focus-bridge"))
        }
        if manager == nil || manager == "bspwm" {
            files.append(StartFile(path: config + "/bspwm/bspwmrc", commandWords: [], line: "focus-bridge &"))
        }
        if manager == nil || manager == "river" {
            files.append(StartFile(path: config + "/river/init", commandWords: [], line: "riverctl spawn focus-bridge"))
        }
        for script in [".xinitrc", ".xsession", ".xprofile"] {
            files.append(StartFile(path: home + "/" + script, commandWords: [], line: "focus-bridge &"))
        }
        return files
    }

    /// A line of this file that runs one of `programs`, found by word (`exec dunst`, not
    /// `exec dunstctl close`); comments are left out.
    public struct Mention: Equatable, Sendable {
        public let path: String
        public let line: Int
        public let text: String
        public let program: String

        /// `~/.config/i3/config:12`.
        public var place: String { "\(path):\(line)" }
    }

    /// The lines of `text` (this file's) that run one of `programs`.
    public func mentions(in text: String, of programs: [String]) -> [Mention] {
        var found: [Mention] = []
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let line = raw.trimmingBlanks()
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let words = line.split(whereSeparator: { " \t;&|()\"'=,".contains($0) }).map(String.init)
            guard let first = words.first else { continue }
            if !commandWords.isEmpty && !commandWords.contains(first) { continue }
            let candidates = commandWords.isEmpty ? words : Array(words.dropFirst())
            for word in candidates where !word.hasPrefix("-") {
                let program = word.split(separator: "/").last.map(String.init) ?? word
                if programs.contains(program) {
                    found.append(Mention(path: path, line: number, text: String(line), program: program))
                    break
                }
            }
        }
        return found
    }
}

/// A freedesktop key file: `[Group]` headers, `Key=Value` lines, `#` comments — D-Bus
/// activation files and desktop entries. Values are taken as written (no locales, no escapes
/// beyond what doctor needs).
public struct KeyFile: Equatable, Sendable {
    public private(set) var groups: [String: [String: String]] = [:]

    public init(_ text: String) {
        var group = ""
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingBlanks()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                group = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingBlanks()
            let value = line[line.index(after: equals)...].trimmingBlanks()
            // The first value of a key counts, as GLib's key files take it.
            if groups[group]?[String(key)] == nil { groups[group, default: [:]][String(key)] = String(value) }
        }
    }

    public func value(_ group: String, _ key: String) -> String? { groups[group]?[key] }

    /// The program an `Exec` line runs: its first word, past `env` and its assignments, as a
    /// file name (`/usr/bin/dunst` → `dunst`).
    public static func program(ofExec exec: String) -> String? {
        var words = exec.split(separator: " ", omittingEmptySubsequences: true).map {
            String($0).trimmingCharacters(in: "\"'")
        }
        if words.first.map({ $0 == "env" || $0.hasSuffix("/env") }) == true {
            words.removeFirst()
            while let first = words.first, first.contains("="), !first.hasPrefix("/") { words.removeFirst() }
        }
        guard let first = words.first, !first.isEmpty else { return nil }
        return first.split(separator: "/").last.map(String.init)
    }
}

/// A D-Bus activation file that offers `org.freedesktop.Notifications`.
public struct ActivationFile: Equatable, Sendable {
    public let path: String
    /// The program `Exec` runs, as a file name; `SystemdService`, where systemd starts it.
    public let program: String?
    public let systemdService: String?

    /// Reads one `.service` file; nil when it does not offer `name`.
    public init?(path: String, text: String, name: String = "org.freedesktop.Notifications") {
        let file = KeyFile(text)
        guard file.value("D-BUS Service", "Name") == name else { return nil }
        self.path = path
        program = file.value("D-BUS Service", "Exec").flatMap(KeyFile.program(ofExec:))
        systemdService = file.value("D-BUS Service", "SystemdService")
    }

    public init(path: String, program: String?, systemdService: String?) {
        self.path = path
        self.program = program
        self.systemdService = systemdService
    }

    /// It starts focus-bridge.
    public var isFocusBridge: Bool { program == "focus-bridge" || systemdService == StartAdvice.unitName }

    /// What it starts, for a sentence: `dunst`, or its file name.
    public var starts: String { program ?? systemdService ?? FilePath.lastComponent(path) }

    /// `$XDG_DATA_HOME/dbus-1/services`: the person's own folder of the bus's search path.
    public static func userFolder(environment: [String: String]) -> String {
        func value(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        return FilePath.appending(value("XDG_DATA_HOME") ?? FilePath.appending(value("HOME") ?? "/", ".local/share"),
                                  "dbus-1/services")
    }

    /// The session bus's service folders, first first: a name offered in two of them is taken
    /// from the first; two files for one name in one folder, either (dbus-daemon(1),
    /// `<standard_session_servicedirs/>`).
    public static func folders(environment: [String: String]) -> [String] {
        func value(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        let services = "dbus-1/services"
        var folders: [String] = []
        if let runtime = value("XDG_RUNTIME_DIR") { folders.append(FilePath.appending(runtime, services)) }
        folders.append(userFolder(environment: environment))
        for folder in (value("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":") {
            folders.append(FilePath.appending(String(folder), services))
        }
        folders.append("/usr/share/dbus-1/services")
        var seen: Set<String> = []
        return folders.filter { seen.insert($0).inserted }
    }
}

/// An XDG autostart entry (`.desktop` in an autostart folder) and whether the session runs it.
public struct AutostartEntry: Equatable, Sendable {
    public let path: String
    public let program: String?
    let hidden: Bool
    let onlyShowIn: [String]?
    let notShowIn: [String]

    public init(path: String, text: String) {
        let file = KeyFile(text)
        let group = "Desktop Entry"
        self.path = path
        program = file.value(group, "Exec").flatMap(KeyFile.program(ofExec:))
        hidden = file.value(group, "Hidden") == "true" || file.value(group, "X-GNOME-Autostart-enabled") == "false"
        func list(_ key: String) -> [String]? {
            file.value(group, key).map { $0.split(separator: ";").map { $0.lowercased() } }
        }
        onlyShowIn = list("OnlyShowIn")
        notShowIn = list("NotShowIn") ?? []
    }

    /// Whether a desktop named by `XDG_CURRENT_DESKTOP` (`currentDesktops`) runs it.
    public func runs(in currentDesktops: [String]) -> Bool {
        let current = currentDesktops.map { $0.lowercased() }
        if hidden { return false }
        if let onlyShowIn, !onlyShowIn.contains(where: current.contains) { return false }
        return !notShowIn.contains(where: current.contains)
    }

    /// The autostart folders, first first; an entry's file name in an earlier one hides the
    /// same name in later ones (XDG Autostart specification).
    public static func folders(environment: [String: String]) -> [String] {
        func value(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        let home = value("HOME") ?? "/"
        let config = value("XDG_CONFIG_HOME") ?? FilePath.appending(home, ".config")
        return [FilePath.appending(config, "autostart")]
            + (value("XDG_CONFIG_DIRS") ?? "/etc/xdg").split(separator: ":").map { FilePath.appending(String($0), "autostart") }
    }
}

extension StringProtocol {
    /// Without blanks (spaces, tabs, line ends) at either end.
    fileprivate func trimmingBlanks() -> Substring {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }

    fileprivate func trimmingCharacters(in characters: String) -> String {
        var text = Substring(self)
        while let first = text.first, characters.contains(first) { text.removeFirst() }
        while let last = text.last, characters.contains(last) { text.removeLast() }
        return String(text)
    }
}
