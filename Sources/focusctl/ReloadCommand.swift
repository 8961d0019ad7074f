import ArgumentParser
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeJSON

/// `focusctl reload`: makes the daemon read its configuration again.
struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reload",
                                                    abstract: "Reload the configuration (a broken file is refused and printed).")

    @OptionGroup var output: JSONOutput<JSONHelp.Reload>

    func run() throws {
        let client = ControlClient()
        client.call(.reload)
        let focuses = client.report([FocusListReport].self, .focusList).value
        if output.json { return print(JSONText.encode(Reloaded(focuses: focuses.map(\.name)))) }
        let names = focuses.map { $0.builtIn == true ? "\($0.name) (built in)" : $0.name }
        print("Configuration reloaded; Focus profiles: \(names.joined(separator: ", ")).")
    }

    struct Reloaded: Encodable {
        let reloaded = true
        let focuses: [String]
    }
}
