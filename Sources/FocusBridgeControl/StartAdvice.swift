/// How to start focus-bridge, for the sentence `focusctl` says when it is not running: the way
/// it was installed, not the developer's `make run`.
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

    public static let unitName = "focus-bridge.service"

    /// `focusctl: focus-bridge is not running on this session bus (start it with '…').`
    public static func notRunning(unitInstalled: Bool) -> String {
        let command = unitInstalled ? "systemctl --user start focus-bridge" : "focus-bridge &"
        return "focusctl: focus-bridge is not running on this session bus (start it with '\(command)')."
    }
}
