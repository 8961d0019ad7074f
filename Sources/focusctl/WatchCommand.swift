import ArgumentParser
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeLoop
import FocusBridgeTime
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// `focusctl watch [--waybar]`: one JSON line per state change, forever — for status bars.
struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watch",
                                                    abstract: "Print one JSON line per state change, forever (for status bars).")

    @Flag(help: "Print waybar's custom-module JSON (text, alt, tooltip, class).")
    var waybar = false

    func run() throws {
        let client = ControlClient()
        let bus = client.bus
        // Lines must reach a status bar at once, not when a pipe buffer fills.
        setvbuf(stdout, nil, _IOLBF, 0)
        let waybar = self.waybar
        let emit: (StatusReport?) -> Void = { status in
            if waybar {
                print(JSONText.encode(WaybarLine(status)))
            } else if let status {
                print(JSONText.encode(status.watched))
            } else {
                print(#"{"running":false}"#)
            }
        }
        bus.subscribe(sender: ControlNames.busName, interface: ControlNames.interface, member: ControlNames.stateChanged,
                      path: ControlNames.path) { signal in
            emit(try? JSONText.decode(StatusReport.self, from: signal.parameters.child(0).string ?? "{}"))
        }
        // The daemon starting or stopping is a change too. StateChanged is sent only to those
        // who ask (Watch): asked again each time a bridge appears.
        bus.watchName(ControlNames.busName) { owner in
            guard owner != nil else { return emit(nil) }
            client.watchAsync()
            client.statusAsync { emit($0) }
        }
        MainLoop.run()
    }

}

/// waybar's custom-module format: the Focus name as text; alt and class `focus`, `silent`,
/// `none` or `off` (daemon not running); the details as tooltip.
struct WaybarLine: Encodable {
    let text: String
    let alt: String
    let tooltip: String
    let `class`: String

    init(_ status: StatusReport?) {
        guard let status else {
            (text, alt, `class`, tooltip) = ("", "off", "off", "FocusBridge is not running")
            return
        }
        var lines = [status.focus.map { "Focus: \($0.name)" } ?? "No Focus"]
        if let until = status.focus?.until.flatMap(Timestamp.parse) { lines[0] += " until \(LocalTime.string(until))" }
        if let device = status.focus?.device { lines[0] += " (from \(device))" }
        lines.append("Held: \(status.counts.heldFocus) for Focus, \(status.counts.heldSummary) for the summary"
                     + (status.counts.snoozed > 0 ? ", \(status.counts.snoozed) snoozed" : ""))
        lines.append("Silent mode: \(status.silent ? "on" : "off")")
        if let dnd = status.downstream.daemonDoNotDisturb, dnd.on { lines.append("The daemon's own DND is on: \(dnd.how)") }
        if !status.mutes.isEmpty { lines.append("Muted: \(StatusCommand.describe(status.mutes))") }
        if let refused = status.config?.refused { lines.append("Configuration refused: \(refused.summary)") }
        if let problem = status.downstream.problem, !status.downstream.connected || status.downstream.mode == "log" {
            lines.append("Daemon: \(problem)")
        }
        let state = status.focus != nil ? "focus" : status.silent ? "silent" : "none"
        (text, alt, `class`, tooltip) = (status.focus?.name ?? "", state, state, lines.joined(separator: "\n"))
    }
}
