import FocusBridgeDBus
import FocusBridgeLoop
import FocusBridgeSystem
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// A dbus-daemon of the bridge's own, for the notification daemon in `spawn` mode.
///
/// dunst, mako, swaync and xfce4-notifyd exit when they cannot own
/// `org.freedesktop.Notifications`, so each runs on a bus where the name is free. The bus config
/// (`dbus/focus-bridge-private-bus.conf`, embedded) has no service directories: nothing is ever
/// auto-started on it behind the bridge's back.
final class PrivateBus {
    let address: String
    private let process: Subprocess
    private let configPath: String

    /// `directory` is the bridge's private state folder (0700): a config file in a shared
    /// folder such as /tmp could be put there first by another user.
    init(directory: String, logger: Logger) throws {
        configPath = "\(directory)/private-bus.conf"
        // 0666 less the umask (0077 in focus-bridge), as Foundation's atomic write gave it.
        try AtomicFile.write(Array(EmbeddedFiles.privateBusConfig.utf8), to: configPath, mode: 0o666)
        process = try Subprocess(["dbus-daemon", "--config-file=\(configPath)", "--nofork", "--print-address=1"],
                                 captureStandardOutput: true)
        guard let line = process.readLine(), !line.isEmpty else {
            throw DBusError(name: DBusError.failed, message: "dbus-daemon did not start")
        }
        address = line.trimmingWhitespace()
        logger.info("private bus for the daemon at \(address)")
    }

    var processID: Int32? { process.processID }

    func onExit(_ handler: @escaping (String) -> Void) { process.onExit(handler) }

    func stop() {
        process.send(signal: SIGTERM)
        _ = process.waitForExit(milliseconds: 2_000)
        try? FileStatus.remove(configPath)
    }
}
