import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import FocusBridgeSystem
import FocusBridgeTime
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Runs the notification daemon's command on the private bus and keeps it running: when it
/// exits after serving, it is started again after a back-off (0.25 s, doubling to 30 s; back to
/// 0.25 s once it has run for a minute).
///
/// A command that cannot start — it cannot be run, or it exits before it ever served: owned
/// `org.freedesktop.Notifications` on the private bus and answered a call there (mako owns the
/// name before it finds out that there is no Wayland display, then exits) — is a state of its
/// own, not a crash loop:
/// it is tried `StartAttempts.limit` times with back-off, one log line each, and `problem` says
/// why for `focusctl status`; then the next command of `fallbacks` is tried, and once none is
/// left `gaveUp` is called (the bridge falls back to the log).
final class SpawnedDaemon {
    private(set) var command: [String]
    private var fallbacks: [[String]]
    private let busAddress: String
    private let logger: Logger
    private var process: Subprocess?
    private var startedAt = Instant.distantPast
    private var backoffMilliseconds: UInt32 = 250
    private var stopping = false
    private var attempts = StartAttempts()
    /// The running process has owned the name on the private bus and answered there.
    private var served = false
    /// Its PID, kept for the log after it exited.
    private var processID: Int32 = 0
    /// Counts starts: an answer meant for an earlier process is not taken for the current one's.
    private var generation = 0
    private var connection: VariantConnection?
    /// Every command given up on, first first, kept after a fallback.
    private(set) var failures: [DaemonStartFailure] = []
    /// Why no daemon serves, or which commands were given up on (all of them, first first);
    /// nil while all is well.
    private(set) var problem: String?
    /// Why no daemon can likely start (no display), while none serves; nil otherwise.
    private(set) var likelyCause: String?
    /// Called when `problem` or `command` changed.
    var changed: () -> Void = {}
    /// Called once, when no command is left to try.
    var gaveUp: () -> Void = {}

    static let minimumBackoff: UInt32 = 250
    static let maximumBackoff: UInt32 = 30_000

    init(command: [String], fallbacks: [[String]] = [], busAddress: String, logger: Logger) {
        self.command = command
        self.fallbacks = fallbacks
        self.busAddress = busAddress
        self.logger = logger
    }

    /// Follows who owns the daemon's name on the private bus: a new owner that answers
    /// `GetCapabilities` is what "started" means.
    func watch(_ connection: VariantConnection, name: String) {
        self.connection = connection
        connection.watchName(name) { [weak self] owner in
            guard let self, let owner, self.process != nil, !self.served else { return }
            self.ask(owner, generation: self.generation, triesLeft: 10)
        }
    }

    /// Asks the new owner for its capabilities; an error is asked again a second later (a daemon
    /// may own the name a moment before it exports its object), as long as the process runs.
    private func ask(_ owner: String, generation: Int, triesLeft: Int) {
        guard let connection else { return }
        NotificationsInterface.capabilities(on: connection, name: owner, timeoutMilliseconds: 10_000) { [weak self] result in
            guard let self, generation == self.generation, self.process != nil, !self.served else { return }
            // Only an answer counts: an error may come from the daemon's bus library alone (GDBus
            // answers UnknownMethod for an object not yet exported), from a daemon that never serves.
            switch result {
            case .success:
                self.servedNow()
            case .failure(let error) where !error.meansDaemonAbsent && triesLeft > 1:
                MainLoop.after(milliseconds: 1_000) { [weak self] in
                    self?.ask(owner, generation: generation, triesLeft: triesLeft - 1)
                }
            case .failure:
                break
            }
        }
    }

    func start() {
        guard !stopping else { return }
        served = false
        generation += 1
        do {
            let process = try Subprocess(command, environment: ["DBUS_SESSION_BUS_ADDRESS": busAddress])
            self.process = process
            processID = process.processID ?? 0
            startedAt = Instant()
            logger.debug("started \(command.joined(separator: " ")) (PID \(process.processID ?? 0))")
            process.onExit { [weak self, weak process] how in
                guard let self, let process, process === self.process else { return }
                self.exited(how)
            }
        } catch {
            cannotStart(error.message)
        }
    }

    private func servedNow() {
        served = true
        attempts.served()
        let name = command[0].split(separator: "/").last.map(String.init) ?? command[0]
        logger.info("\(name) (PID \(processID)) serves notifications behind the bridge")
        let before = problem
        problem = failures.isEmpty ? nil : given + "; runs \(name) instead"
        likelyCause = nil
        if problem != before { changed() }
    }

    private func exited(_ how: String) {
        process = nil
        guard !stopping else { return }
        guard served else { return cannotStart("it \(how) before it served notifications") }
        logger.warning("the daemon \(command[0]) \(how); restarting it")
        if Instant().timeIntervalSince(startedAt) > 60 { backoffMilliseconds = Self.minimumBackoff }
        let delay = backoffMilliseconds
        backoffMilliseconds = min(backoffMilliseconds * 2, Self.maximumBackoff)
        MainLoop.after(milliseconds: delay) { [weak self] in self?.start() }
    }

    /// The commands given up on, in one text, first first.
    private var given: String { failures.map(\.sentence).joined(separator: "; ") }

    /// One failed attempt: one log line, then a retry, the next command, or the log. The status
    /// keeps every command given up on before this one.
    private func cannotStart(_ reason: String) {
        let sentence = "cannot start \(command.joined(separator: " ")): \(reason)"
        likelyCause = DaemonStartFailure.likelyCause(environment: Environment.all)
        let cause = likelyCause.map { " (likely cause: \($0))" } ?? ""
        switch attempts.failed(reason) {
        case .retry(let delay):
            let line = "\(sentence) (attempt \(attempts.failures) of \(StartAttempts.limit); "
                + "trying again in \(Double(delay) / 1000) s)"
            problem = failures.isEmpty ? line : given + "; " + line
            logger.error("\(line)")
            MainLoop.after(milliseconds: delay) { [weak self] in self?.start() }
            changed()
        case .giveUp:
            let failure = DaemonStartFailure(command: command.joined(separator: " "), reason: reason)
            failures.append(failure)
            attempts = StartAttempts()
            guard !fallbacks.isEmpty else {
                problem = given + "; fell back to log mode"
                logger.error("\(failure.sentence); fell back to log mode: notifications are printed on standard output\(cause)")
                changed()
                return gaveUp()
            }
            let next = fallbacks.removeFirst()
            problem = given + "; trying \(next.joined(separator: " ")) instead"
            logger.error("\(failure.sentence); trying \(next.joined(separator: " ")) instead")
            command = next
            changed()
            start()
        }
    }

    /// Ends the daemon (SIGTERM, then SIGKILL after two seconds) and stops restarting it.
    func stop() {
        stopping = true
        guard let process else { return }
        process.send(signal: SIGTERM)
        if !process.waitForExit(milliseconds: 2_000) { process.send(signal: SIGKILL) }
    }
}
