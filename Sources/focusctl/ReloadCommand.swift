import ArgumentParser
import FocusBridgeCore
import FocusBridgeJSON

/// `focusctl reload`: makes the daemon read its configuration again.
struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reload",
                                                    abstract: "Reload the configuration (a broken file is refused and printed).")

    @Flag(help: "Print {\"reloaded\": true, \"focuses\": [names]}.")
    var json = false

    func run() throws {
        let client = ControlClient()
        client.call("Reload")
        let focuses = client.report([FocusListReport].self, "FocusList").value
        if json { return print(JSONText.encode(Reloaded(focuses: focuses.map(\.name)))) }
        let names = focuses.map { $0.builtIn == true ? "\($0.name) (built in)" : $0.name }
        print("Configuration reloaded; Focus profiles: \(names.joined(separator: ", ")).")
    }

    struct Reloaded: Encodable {
        let reloaded = true
        let focuses: [String]
    }
}
