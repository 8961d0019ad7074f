/// How to start focus-bridge, for the sentences `focusctl` says when it is not running and
/// `doctor` says about starting it with the session: the way it was installed and what the
/// session runs (a user systemd manager, a desktop that runs autostart entries, a window
/// manager), never the developer's `make run`.
public enum StartAdvice {
    /// The folders `systemd --user` reads units from (systemd.unit(5), user units), as found from
    /// `environment` (HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_DATA_DIRS).
    public static func userUnitFolders(_ environment: [String: String]) -> [String] {
        func value(_ key: String) -> String? {
            guard let text = environment[key], !text.isEmpty else { return nil }
            return text
        }
        let home = value("HOME") ?? "/"
        let config = value("XDG_CONFIG_HOME") ?? home + "/.config"
        let data = value("XDG_DATA_HOME") ?? home + "/.local/share"
        let dataDirs = (value("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        return [config + "/systemd/user", "/etc/systemd/user", data + "/systemd/user"]
            + dataDirs.map { $0 + "/systemd/user" }
            + ["/usr/local/lib/systemd/user", "/usr/lib/systemd/user", "/lib/systemd/user"]
    }

    /// The folders where enabling a user unit puts its links (`WANTEDBY.wants/UNIT`): the
    /// person's own and the system's (`systemctl --global enable`).
    public static func userUnitLinkFolders(_ environment: [String: String]) -> [String] {
        let folders = userUnitFolders(environment)
        return [folders[0], folders[1]]
    }

    public static let unitName = "focus-bridge.service"

    /// The socket a user systemd manager listens on: `$XDG_RUNTIME_DIR/systemd/private`, there
    /// while one runs the session (`systemctl --user` talks to it). nil without XDG_RUNTIME_DIR.
    public static func userManagerSocket(_ environment: [String: String]) -> String? {
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
        return runtime + "/systemd/private"
    }

    /// The command that starts focus-bridge now: the unit where a user manager runs and has it,
    /// else the program itself.
    public static func startNow(unitInstalled: Bool, userManager: Bool) -> String {
        unitInstalled && userManager ? "systemctl --user start focus-bridge" : "focus-bridge &"
    }

    /// `focusctl: focus-bridge is not running on this session bus (start it with '…').`
    public static func notRunning(unitInstalled: Bool, userManager: Bool) -> String {
        "focusctl: focus-bridge is not running on this session bus (start it with "
            + "'\(startNow(unitInstalled: unitInstalled, userManager: userManager))')."
    }

    /// The one sentence that makes focus-bridge start with the session, for what it runs:
    /// enabling the unit under a user manager; the autostart entry on a desktop; the line in the
    /// window manager's configuration (`startFile`: the file found for it, if any) elsewhere.
    public static func withSession(kind: SessionKind, userManager: Bool, unitInstalled: Bool,
                                   autostartFolder: String, startFile: StartFile?) -> String {
        if userManager && unitInstalled { return "enable the unit: systemctl --user enable --now focus-bridge" }
        if userManager {
            return "install FocusBridge's user unit (make install, or the package), then: "
                + "systemctl --user enable --now focus-bridge"
        }
        switch kind {
        case .desktop(let name):
            return "\(name) runs XDG autostart entries: copy FocusBridge's (focus-bridge.desktop, as make install "
                + "puts it) into \(autostartFolder)/"
        case .windowManager(let name):
            let line = startFile?.line ?? "exec focus-bridge"
            let file = startFile.map { " in \($0.path)" } ?? ""
            return "\(name) runs what its configuration says, not autostart entries: add `\(line)`\(file) "
                + "(in place of the line that started your old daemon, such as `exec dunst`)"
        case .unknown:
            return "add focus-bridge to what starts your session: `exec focus-bridge` in a window manager's "
                + "configuration, or FocusBridge's autostart entry in \(autostartFolder)/ on a desktop that runs them"
        }
    }
}
