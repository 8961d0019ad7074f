import ArgumentParser
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeTime

/// `focusctl status`: the Focus, silent mode, what is held, the downstream.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show what FocusBridge is doing.")

    @OptionGroup var output: JSONOutput<JSONHelp.Status>

    func run() throws {
        let (status, text) = ControlClient().report(StatusReport.self, .status)
        if output.json {
            print(text)
            return
        }
        let counts = status.counts
        let downstream = status.downstream
        var rows = [
            ["Focus", FocusCommand.describe(status.focus)],
            ["Next summary", status.nextSummary.flatMap(Timestamp.parse).map { LocalTime.string($0) } ?? "none scheduled"],
            ["Silent", status.silent ? "on" : "off"],
            ["Downstream", "\(downstream.mode) — \(downstream.target) (\(downstream.connected ? "connected" : "not connected"))"],
            ["Daemon", downstream.daemon?.line ?? "none (FocusBridge answers for itself)"],
            ["Capabilities", downstream.capabilities?.joined(separator: " ") ?? "unknown"],
            ["Daemon's DND", Self.describe(downstream.daemonDoNotDisturb)],
            ["Bridge", "FocusBridge \(status.version)"],
            ["Received", "\(counts.received ?? 0)"],
            ["Delivered", "\(counts.delivered ?? 0)"],
            ["Waiting", "\(counts.queued ?? 0) queued, \(counts.inFlight ?? 0) in flight"],
            ["Held", "\(counts.heldFocus) for Focus, \(counts.heldSummary) for the summary"
                + (counts.snoozed > 0 ? ", \(counts.snoozed) snoozed" : "")],
            ["Muted", Self.describe(status.mutes)],
            ["Window", Self.describe(status.windows)],
        ]
        if let config = status.config {
            rows.append(["Config", config.path])
            if let refused = config.refused {
                rows.append(["Config refused", refused.summary + "; the running configuration stays until the file loads"])
            }
        }
        if let log = status.log { rows.append(["Log", log.read]) }
        if let state = status.state {
            rows.append(["State", Self.describe(state)])
            if let problem = state.problem { rows.append(["State problem", problem]) }
        }
        // Right under the downstream it is about: a daemon that cannot start, and why likely.
        if let cause = downstream.cause { rows.insert(["Likely cause", cause], at: 4) }
        if let problem = downstream.problem { rows.insert(["Problem", problem], at: 4) }
        print(Table.render(rows))
    }

    /// `firefox (from sway)`, `mpv, fullscreen (from x11)`, or why it is not known.
    static func describe(_ windows: WindowReport?) -> String {
        guard let windows, windows.source != "off" else { return "not known" + (windows?.problem.map { ": \($0)" } ?? "") }
        var text = windows.focused ?? "none"
        if let fullscreen = windows.fullscreen { text += fullscreen == windows.focused ? ", fullscreen" : "; fullscreen: \(fullscreen)" }
        return text + " (from \(windows.source))"
    }

    /// `/home/me/.local/state/focus-bridge`, or what keeps the bridge from writing there and
    /// how many notifications that concerns.
    static func describe(_ state: StatusReport.State) -> String {
        var text = state.folder + (state.inMemory ? " (cannot be used: state in memory only)" : "")
        if state.unwritten > 0 { text += "; \(Count.of(state.unwritten, "notification")) not written there yet" }
        if state.lost > 0 { text += "; \(state.lost) missing from history (could not be kept)" }
        return text
    }

    /// The apps muted now: `Slack until 14:30, Steam until Tue 09:00`, or `none`.
    static func describe(_ mutes: [MuteReport]) -> String {
        guard !mutes.isEmpty else { return "none" }
        return mutes.map { "\($0.app) until " + (Timestamp.parse($0.until).map { LocalTime.string($0) } ?? $0.until) }
            .joined(separator: ", ")
    }

    /// The daemon's own Do Not Disturb, for the plain status: `on: dunst paused (dunstctl
    /// set-paused); …`, or `off (dunstctl set-paused)` — `how` names the state when on, so off
    /// names only the switch.
    static func describe(_ dnd: StatusReport.Downstream.DaemonDoNotDisturb?) -> String {
        guard let dnd else { return "none the bridge can read" }
        if dnd.on { return "on: \(dnd.how); it shows nothing the bridge delivers" }
        guard dnd.how.hasSuffix(")"), let open = dnd.how.lastIndex(of: "(") else { return "off" }
        return "off (" + dnd.how[dnd.how.index(after: open)...]
    }
}
