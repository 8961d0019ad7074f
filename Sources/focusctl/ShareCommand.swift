import ArgumentParser
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeTime

/// `focusctl share status|forget`: Focus shared across devices through a synced folder.
struct ShareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "share",
        abstract: "Focus shared across devices through a synced folder ([share] in the configuration).",
        subcommands: [ShareStatusCommand.self, ShareForgetCommand.self],
        defaultSubcommand: ShareStatusCommand.self)
}

/// `focusctl share status [--json]`.
struct ShareStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show this device, the devices seen in the share folder, and each one's last change.")

    @OptionGroup var output: JSONOutput<JSONHelp.ShareState>

    func run() throws {
        let (report, text) = ControlClient().report(ShareReport.self, .shareStatus)
        if output.json { return print(text) }
        guard let folder = report.folder else {
            return print("Sharing is off: set [share] folder in the configuration (focus-bridge.toml(5), SHARE).")
        }
        var rows = [["Folder", folder], ["This device", report.device],
                    ["Last change here", report.lastChange.map(Self.describe) ?? "none yet"]]
        if let problem = report.problem { rows.append(["Problem", problem]) }
        print(Table.render(rows))
        guard !report.devices.isEmpty else { return print("\nNo other device has written to the folder yet.") }
        var devices = [["DEVICE", "LAST CHANGE", "SEEN", "APPLIED HERE"]]
        for device in report.devices {
            devices.append([device.device, device.lastChange.map(Self.describe) ?? "none yet",
                            Timestamp.parse(device.seen).map { LocalTime.string($0) } ?? device.seen,
                            Self.applied(device)])
        }
        print("\n" + Table.render(devices))
    }

    /// Whether the device's last change is in effect here, and why not.
    static func applied(_ device: ShareReport.Device) -> String {
        if device.applied { return "yes" }
        guard let change = device.lastChange else { return "-" }
        switch device.ignored {
        case "unknown-focus": return "no: ignored, this device has no Focus \"\(change.focus ?? "")\""
        case "far-future": return "no: ignored, stamped more than a day ahead of this clock"
        default: return "no: a newer change was made"
        }
    }

    /// "work on until 17:30, made 12:00" / "Focus off, made 12:05".
    static func describe(_ change: ShareReport.Change) -> String {
        var text = change.focus.map { "\($0) on" } ?? "Focus off"
        if let until = change.until.flatMap(Timestamp.parse) { text += " until \(LocalTime.string(until))" }
        if let since = Timestamp.parse(change.since) { text += ", made \(LocalTime.string(since))" }
        return text
    }
}

/// `focusctl share forget DEVICE`.
struct ShareForgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Forget a device seen in the share folder (until it makes a new change).")

    @Argument(help: "The device, as `focusctl share status` names it.")
    var device: String

    @OptionGroup var output: JSONOutput<JSONHelp.ShareForget>

    func run() throws {
        let (report, text) = ControlClient().report(ShareForgetReport.self, .shareForget(device: device))
        print(output.json ? text : report.message)
    }
}
