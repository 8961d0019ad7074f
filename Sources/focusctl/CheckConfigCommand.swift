import ArgumentParser
import FocusBridgeConfig

/// `focusctl check-config [PATH]`: validates a configuration file without a running daemon.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check-config",
                                                    abstract: "Check a configuration file (default: the one focus-bridge reads).")

    @Argument(help: ArgumentHelp("The file to check.", valueName: "path"))
    var path: String?

    func run() throws {
        let path = path ?? Configuration.defaultPath()
        do {
            _ = try Configuration.load(path: path)
            print("\(path): ok")
        } catch {
            ControlClient.fail(error.description, code: 1)
        }
    }
}
