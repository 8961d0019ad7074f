import ArgumentParser
import FocusBridgeCore

/// `focusctl status`: the downstream, whether it is connected, and the counts.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Show what FocusBridge is doing.")

    @Flag(help: "Print the status as one JSON object.")
    var json = false

    func run() throws {
        let status = try ControlClient().json("Status") as? [String: Any] ?? [:]
        if json {
            print(JSONText.encode(status))
            return
        }
        let downstream = status["downstream"] as? [String: Any] ?? [:]
        let counts = status["counts"] as? [String: Any] ?? [:]
        func count(_ key: String) -> String { "\(counts[key] as? Int ?? 0)" }
        let connected = (downstream["connected"] as? Bool) == true ? "connected" : "not connected"
        let next = (status["next-summary"] as? String).flatMap(JSONText.parseTimestamp).map(Clock.local) ?? "none scheduled"
        print(Table.render([
            ["Focus", FocusCommand.describe(status["focus"])],
            ["Next summary", next],
            ["Downstream", "\(downstream["mode"] as? String ?? "?") — \(downstream["target"] as? String ?? "?") (\(connected))"],
            ["Silent", (status["silent"] as? Bool) == true ? "on" : "off"],
            ["Received", count("received")],
            ["Delivered", count("delivered")],
            ["Waiting", "\(count("queued")) queued, \(count("in-flight")) in flight"],
            ["Held", "\(count("held-focus")) for Focus, \(count("held-summary")) for the summary"],
        ]))
    }
}
