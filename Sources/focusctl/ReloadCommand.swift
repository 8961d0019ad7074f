import ArgumentParser

/// `focusctl reload`: makes the daemon read its configuration again.
struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "reload",
                                                    abstract: "Reload the configuration (a broken file is refused and printed).")

    func run() throws {
        ControlClient().call("Reload")
        print("Configuration reloaded.")
    }
}
