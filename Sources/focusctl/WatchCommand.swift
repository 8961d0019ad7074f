import ArgumentParser
import FocusBridgeCore
import FocusBridgeDBus
@preconcurrency import Foundation
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
        let emit: ([String: Any]?) -> Void = { status in
            print(JSONText.encode(waybar ? Self.waybar(status) : (status ?? ["running": false])))
        }
        bus.subscribe(sender: "org.focusbridge.FocusBridge", interface: "org.focusbridge.Control1", member: "StateChanged",
                      path: "/org/focusbridge/FocusBridge") { signal in
            let text = signal.parameters.child(0).string ?? "{}"
            emit((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any])
        }
        // The daemon starting or stopping is a change too.
        bus.watchName("org.focusbridge.FocusBridge") { owner in
            guard owner != nil else { return emit(nil) }
            client.statusAsync { emit($0) }
        }
        MainLoop.run()
    }

    /// waybar's custom-module format: the Focus name as text; alt and class `focus`, `silent`,
    /// `none` or `off` (daemon not running); the details as tooltip.
    static func waybar(_ status: [String: Any]?) -> [String: Any] {
        guard let status else {
            return ["text": "", "alt": "off", "class": "off", "tooltip": "FocusBridge is not running"]
        }
        let focus = status["focus"] as? [String: Any]
        let name = focus?["name"] as? String
        let silent = status["silent"] as? Bool ?? false
        let counts = status["counts"] as? [String: Any] ?? [:]
        let heldFocus = counts["held-focus"] as? Int ?? 0
        let heldSummary = counts["held-summary"] as? Int ?? 0
        var tooltip = [name.map { "Focus: \($0)" } ?? "No Focus"]
        if let until = (focus?["until"] as? String).flatMap(JSONText.parseTimestamp) { tooltip[0] += " until \(Clock.local(until))" }
        tooltip.append("Held: \(heldFocus) for Focus, \(heldSummary) for the summary")
        tooltip.append("Silent mode: \(silent ? "on" : "off")")
        let state = name != nil ? "focus" : silent ? "silent" : "none"
        return ["text": name ?? "", "alt": state, "class": state, "tooltip": tooltip.joined(separator: "\n")]
    }
}
