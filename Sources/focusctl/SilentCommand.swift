import ArgumentParser
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON

/// `focusctl silent [on|off|toggle]`: the Ring/Silent switch.
struct SilentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "silent",
        abstract: "Silent mode, the Ring/Silent switch: sounds off (but critical); everything is still shown.",
        discussion: "Without an argument, prints whether it is on. To hold notifications back, use focusctl dnd.")

    enum Switch: String, ExpressibleByArgument, CaseIterable {
        case on, off, toggle
    }

    @Argument(help: "Turn it on or off, or toggle it; without it, show the state.")
    var state: Switch?

    @OptionGroup var output: JSONOutput<JSONHelp.Silent>

    func run() throws {
        let client = ControlClient()
        let on: Bool
        switch state {
        case nil:
            on = client.report(StatusReport.self, .status).value.silent
        case .on?: on = true
        case .off?: on = false
        case .toggle?:
            on = !client.report(StatusReport.self, .status).value.silent
        }
        if state != nil { client.call(.setSilent(on)) }
        if output.json { return print(JSONText.encode(["silent": on])) }
        print(on ? "Silent mode is on: no notification makes a sound but critical ones."
                 : "Silent mode is off: notifications make their sounds.")
    }
}
