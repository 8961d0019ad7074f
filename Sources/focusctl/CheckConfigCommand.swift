import ArgumentParser
import FocusBridgeConfig
import FocusBridgeSystem

/// `focusctl check-config [PATH]`: validates a configuration file without a running daemon.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check-config",
                                                    abstract: "Check a configuration file (default: the one focus-bridge reads).")

    @Argument(help: ArgumentHelp("The file to check.", valueName: "path"))
    var path: String?

    /// A missing file is not "ok": named explicitly it is refused (exit 1); the default one is
    /// reported as absent, with the defaults in force (exit 0). A broken file prints every
    /// problem as its `PATH:LINE:COLUMN: message` line, in file order, and exits 1.
    func run() throws {
        let path: String
        do { path = try self.path ?? EnvironmentPaths.configFile() } catch {
            ControlClient.fail("focusctl: \(error)", code: 1)
        }
        if !FileStatus.exists(path) {
            if self.path != nil { ControlClient.fail("focusctl: \(path): no such file", code: 1) }
            print("\(path): no config file: defaults in use")
            return
        }
        if FileStatus.isDirectory(path) { ControlClient.fail("focusctl: \(path): is a folder, not a configuration file", code: 1) }
        do {
            _ = try Configuration.load(path: path)
            print("\(path): ok")
        } catch {
            ControlClient.fail(error.description, code: 1)
        }
    }
}
