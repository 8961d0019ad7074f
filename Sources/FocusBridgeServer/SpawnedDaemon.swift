import FocusBridgeDBus
import Foundation
import Logging

/// Runs the notification daemon's command on the private bus and keeps it running: when it
/// exits, it is started again after a back-off (0.25 s, doubling to 30 s; back to 0.25 s once
/// it has run for a minute).
final class SpawnedDaemon {
    let command: [String]
    private let busAddress: String
    private let logger: Logger
    private var process: Subprocess?
    private var startedAt = Date.distantPast
    private var backoffMilliseconds: UInt32 = 250
    private var stopping = false

    static let minimumBackoff: UInt32 = 250
    static let maximumBackoff: UInt32 = 30_000

    init(command: [String], busAddress: String, logger: Logger) {
        self.command = command
        self.busAddress = busAddress
        self.logger = logger
    }

    var processID: Int32? { process?.processID }

    func start() {
        guard !stopping else { return }
        do {
            let process = try Subprocess(command, environment: ["DBUS_SESSION_BUS_ADDRESS": busAddress])
            self.process = process
            startedAt = Date()
            logger.info("started \(command.joined(separator: " ")) (PID \(process.processID ?? 0))")
            process.onExit { [weak self] how in self?.exited(how) }
        } catch {
            logger.error("cannot start \(command.joined(separator: " ")): \(error.message)")
            scheduleRestart()
        }
    }

    private func exited(_ how: String) {
        process = nil
        guard !stopping else { return }
        logger.warning("the daemon \(command[0]) \(how); restarting it")
        if Date().timeIntervalSince(startedAt) > 60 { backoffMilliseconds = Self.minimumBackoff }
        scheduleRestart()
    }

    private func scheduleRestart() {
        let delay = backoffMilliseconds
        backoffMilliseconds = min(backoffMilliseconds * 2, Self.maximumBackoff)
        MainLoop.after(milliseconds: delay) { [weak self] in self?.start() }
    }

    /// Ends the daemon (SIGTERM, then SIGKILL after two seconds) and stops restarting it.
    func stop() {
        stopping = true
        guard let process else { return }
        process.send(signal: SIGTERM)
        if !process.waitForExit(milliseconds: 2_000) { process.send(signal: SIGKILL) }
    }
}
