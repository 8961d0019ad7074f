import FocusBridgeConfig
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeLoop
import FocusBridgeStore
import FocusBridgeSystem
import FocusBridgeTime
#if canImport(Glibc)
import Glibc
#endif

/// Control1's calls are read from `Variant` bodies (Control1Request, FocusBridgeControl).
extension Variant: Control1Body {}

/// `org.focusbridge.Control1`, the interface `focusctl` talks to. Answers are JSON texts whose
/// keys are documented in focusctl(1).
final class ControlInterface {
    static let busName = ControlNames.busName
    static let name = ControlNames.interface
    static let path = ControlNames.path
    static let invalidConfig = ControlNames.invalidConfig
    static let invalidRequest = ControlNames.invalidRequest

    private let bus: VariantConnection
    let bridge: Bridge
    let store: Store
    let focus: FocusController
    /// `[share]` (ControlInterface+Share.swift).
    var share: ShareFolder?
    /// The Time Sensitive review, for `Review`.
    var review: ReviewController?
    private let reload: () -> ConfigError?
    /// The configuration file, for `focusctl apps` (where a setting comes from).
    let configPath: String
    /// What the window watcher knows, for `status`.
    var windows: () -> WindowReport? = { nil }
    /// The configuration file and its refusal, for `status`.
    var config: () -> StatusReport.Config? = { nil }
    /// Where the log goes, for `status`.
    var log: StatusReport.Log?
    /// Why this downstream (the plan's reason), for `status`.
    var downstreamReason: String?
    private var lastAnnounced = ""
    private var announcing = false
    /// The connections that asked for `StateChanged` (`Watch`), all of the bridge's own user:
    /// the signal is sent to them alone, never broadcast to every connection on the bus.
    private var watchers: [String] = []
    static let maxWatchers = 256
    /// Reports being counted (ControlInterface+Report.swift).
    var reports = 0

    init(bus: VariantConnection, bridge: Bridge, store: Store, focus: FocusController, configPath: String,
         reload: @escaping () -> ConfigError?) {
        self.configPath = configPath
        self.bus = bus
        self.bridge = bridge
        self.store = store
        self.focus = focus
        self.reload = reload
    }

    func export() throws(DBusError) {
        try bus.export(path: Self.path, interfaceXML: EmbeddedFiles.controlXML, interface: Self.name) { [self] call in
            // Only the user the bridge runs for may control it (the bus may admit others).
            bridge.senders.withSender(call.sender) { [self] sender in
                guard sender.userID == getuid() else {
                    return call.fail(DBusError(name: "org.freedesktop.DBus.Error.AccessDenied",
                                               message: "focus-bridge takes control calls from its own user only"))
                }
                dispatch(call)
            }
        }
    }

    private func dispatch(_ call: VariantCall) {
        do {
            try handle(call)
        } catch let error as Control1Request.Invalid {
            call.fail(DBusError(name: DBusError.invalidArgs, message: error.description))
        } catch let error as ExplainRequest.Invalid {
            call.fail(DBusError(name: Self.invalidRequest, message: error.description))
        } catch let error as Bridge.Refused {
            call.fail(DBusError(name: Self.invalidRequest, message: error.description))
        } catch let error as FocusController.Refused {
            call.fail(DBusError(name: Self.invalidRequest, message: error.description))
        } catch let error as FocusController.NotANumber {
            call.fail(DBusError(name: DBusError.invalidArgs, message: error.description))
        } catch let error as Refused {
            call.fail(DBusError(name: Self.invalidRequest, message: error.description))
        } catch let error as ReviewController.Refused {
            call.fail(DBusError(name: Self.invalidRequest, message: error.description))
        } catch {
            call.fail(DBusError(name: DBusError.failed, message: "\(error)"))
        }
    }

    private func handle(_ call: VariantCall) throws {
        guard let method = Control1Method(rawValue: call.methodName) else {
            return call.fail(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "no method \(call.methodName)"))
        }
        let request = try Control1Request(method, body: call.parameters)
        switch request {
        case .status:
            call.reply(.tuple([.string(JSONText.encode(status()))]))
        case .history(let asked, let app):
            let limit = min(Int(asked), HistoryReport.maxEntries)
            let entries = try store.history(limit: limit == 0 ? 50 : limit, app: app)
            call.reply(.tuple([.string(JSONText.encode(entries.map(HistoryReport.init)))]))
        case .report(let days):
            try report(call, days: days)
        case .review(let deliver):
            guard let review else { return call.fail(DBusError(name: DBusError.failed, message: "the review is not running")) }
            try review.review(call, deliver: deliver)
        case .reload:
            if let error = reload() {
                call.fail(DBusError(name: Self.invalidConfig, message: error.description))
            } else {
                focus.evaluate()
                call.reply()
            }
        case .setSilent(let on):
            try bridge.setSilent(on)
            call.reply()
        case .explain(let json):
            call.reply(.tuple([.string(try explain(json))]))
        case .focusOn(let name, let seconds, let until):
            // 0 means no duration; anything else must be a sane one (NaN and infinity are
            // invalid arguments; negative and too long refused). One too short to outlast the
            // call is answered: the status then says no Focus is on.
            let ended = try focusChange {
                _ = try focus.turnOn(name, duration: seconds == 0 ? nil : seconds, until: until.isEmpty ? nil : until)
            }
            call.reply(.tuple([.string(JSONText.encode(FocusChangeReport(status: status(), ended: ended)))]))
        case .focusOff:
            let ended = try focusChange { focus.turnOff() }
            call.reply(.tuple([.string(JSONText.encode(FocusChangeReport(status: status(), ended: ended)))]))
        case .focusList:
            call.reply(.tuple([.string(JSONText.encode(focusList()))]))
        case .summary:
            call.reply(.tuple([.string(JSONText.encode(summary()))]))
        case .watch:
            if !watchers.contains(call.sender) {
                guard watchers.count < Self.maxWatchers else {
                    return call.fail(DBusError(name: "org.freedesktop.DBus.Error.LimitsExceeded",
                                               message: "focus-bridge has \(Self.maxWatchers) watchers already"))
                }
                watchers.append(call.sender)
            }
            call.reply()
        case .deliverSummary:
            call.reply(.tuple([.uint32(UInt32(clamping: bridge.deliverSummary()))]))
        case .explainNotification(let id):
            call.reply(.tuple([.string(JSONText.encode(try bridge.explainNotification(id)))]))
        case .show(let id):
            call.reply(.tuple([.string(JSONText.encode(try bridge.show(id)))]))
        case .dismiss(let id):
            call.reply(.tuple([.string(JSONText.encode(try bridge.dismiss(id)))]))
        case .dismissHeld:
            call.reply(.tuple([.string(JSONText.encode(bridge.dismissAllHeld()))]))
        case .showAll(let digest):
            call.reply(.tuple([.string(JSONText.encode(try bridge.showAll(digest: digest)))]))
        case .snooze(let id, let seconds):
            let report = try bridge.snooze(id, seconds: seconds)
            call.reply(.tuple([.string(JSONText.encode(report))]))
        case .apps, .setAppChoice, .resetAppChoice, .mute, .unmute:
            try handleAppCall(call, request)
        case .shareStatus, .shareForget:
            try handleShareCall(call, request)
        }
    }

    // MARK: Answers

    func status() -> StatusReport {
        StatusReport(
            version: focusBridgeVersion, silent: bridge.silent, focus: bridge.activeFocus.map(StatusReport.Focus.init),
            nextSummary: focus.nextSummary.map(Timestamp.string),
            downstream: .init(mode: bridge.downstream.mode.rawValue, target: bridge.downstream.target,
                              connected: bridge.downstream.isConnected,
                              daemon: bridge.downstream.serverInformation, problem: bridge.downstream.problem,
                              capabilities: bridge.capabilities,
                              daemonDoNotDisturb: bridge.downstream.daemonQuiet.map { .init(on: $0.on, how: $0.how) },
                              failures: bridge.downstream.failures,
                              cause: bridge.downstream.likelyCause, reason: downstreamReason),
            counts: .init(received: bridge.received, delivered: bridge.delivered, queued: bridge.queuedCount,
                          inFlight: bridge.inFlightCount, heldFocus: bridge.heldCount(.heldFocus),
                          heldSummary: bridge.heldCount(.heldSummary), snoozed: bridge.snoozedCount),
            mutes: bridge.preferences.mutes.active(at: bridge.clock.now).map(MuteReport.init),
            windows: windows(), state: state(), config: config(), log: log)
    }

    /// The state folder: whether the bridge can write there, and what waits to be written.
    private func state() -> StatusReport.State {
        let folder = FilePath.parent(store.path)
        let commit = bridge.commit
        if let reason = store.inMemoryBecause {
            // Every row in memory waits for the folder (a count over memory, not a file).
            let kept = ((try? store.countsByDecision()) ?? [:]).values.reduce(0, +)
            return .init(folder: folder, inMemory: true,
                         problem: "\(reason); until then history and held notifications are kept in memory only "
                             + "(lost if focus-bridge stops), and the folder is tried again every "
                             + Service.stateRetryInterval,
                         unwritten: kept + commit.unwritten, lost: commit.lost)
        }
        return .init(folder: folder, inMemory: false, problem: commit.problem, unwritten: commit.unwritten, lost: commit.lost)
    }

    private func focusList() -> [FocusListReport] {
        bridge.settings.profiles.map { FocusListReport($0, active: bridge.activeFocus?.name == $0.name) }
    }

    /// Makes a change of the Focus; returns the Focus it ended, if any, with how many
    /// notifications that Focus held (counted before, delivered by the bridge as it ends).
    private func focusChange(_ change: () throws -> Void) throws -> FocusChangeReport.Ended? {
        let before = bridge.activeFocus
        let held = before.map { bridge.ledger.held.waitingCount(for: $0.name) } ?? 0
        try change()
        guard let before, bridge.activeFocus?.name != before.name else { return nil }
        return .init(name: before.name, held: held, afterFocus: bridge.settings.general.afterFocus.rawValue)
    }

    private func summary() -> SummaryReport {
        SummaryReport(next: focus.nextSummary, held: bridge.waiting(.heldSummary))
    }

    /// Decides a described notification with the daemon's live state, without sending it.
    private func explain(_ json: String) throws -> String {
        let request: ExplainRequest
        do { request = try JSONText.decode(ExplainRequest.self, from: json) } catch {
            throw ExplainRequest.Invalid(description: "the request is not valid JSON for Explain: \(error)")
        }
        let decision = try Explanation.decide(request, context: bridge.policyContext(), timeZone: focus.timeZone)
        return JSONText.encode(DecisionReport(decision))
    }

    // MARK: Announcing changes

    /// A connection left the bus: it watches no more.
    func connectionLeft(_ name: String) {
        watchers.removeAll { $0 == name }
    }

    /// Sends `StateChanged` with the status to each watcher, once per main-loop pass and only
    /// when the part a watcher shows (Focus, silent, held counts, downstream) changed.
    func announce() {
        // Nobody to tell: nothing is built. The next watcher hears the next change, whatever
        // was announced before it came.
        guard !watchers.isEmpty else { return lastAnnounced = "" }
        guard !announcing else { return }
        announcing = true
        MainLoop.whenIdle { [weak self] in
            guard let self else { return }
            self.announcing = false
            let text = JSONText.encode(self.status().watched)
            guard text != self.lastAnnounced else { return }
            self.lastAnnounced = text
            for watcher in self.watchers {
                self.bus.emitSignal(destination: watcher, path: Self.path, interface: Self.name, name: ControlNames.stateChanged,
                                    .tuple([.string(text)]))
            }
        }
    }
}
