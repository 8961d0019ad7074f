import ArgumentParser
import FocusBridgeCore
import FocusBridgeDBus

/// `focusctl silent on|off|toggle`: the Ring/Silent switch.
struct SilentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "silent",
                                                    abstract: "Silent mode: no sound for anything but critical notifications.")

    enum Switch: String, ExpressibleByArgument, CaseIterable {
        case on, off, toggle
    }

    @Argument(help: "on, off or toggle.")
    var state: Switch

    func run() throws {
        let client = ControlClient()
        let on: Bool
        switch state {
        case .on: on = true
        case .off: on = false
        case .toggle:
            on = !client.report(StatusReport.self, "Status").value.silent
        }
        client.call("SetSilent", .tuple([.bool(on)]))
        print("Silent mode \(on ? "on" : "off").")
    }
}
