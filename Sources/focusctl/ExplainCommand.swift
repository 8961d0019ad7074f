import ArgumentParser
import FocusBridgeConfig
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeTime

/// `focusctl explain`: what would happen to such a notification, rule by rule, without sending
/// it — asked of the running daemon, or decided here from `--config` by the same core code.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show what would happen to a notification, rule by rule; by ID, how one from history was decided then and now.",
        discussion: """
            focusctl explain ID takes a notification from focusctl history: its app, hints and \
            actions as received, the Focus, silent mode and screen lock then, the decision then \
            rule by rule, its fate, and the decision it would get now. focusctl explain --app APP \
            describes one instead; what the options do not say is assumed, and listed.
            """)

    @Argument(help: ArgumentHelp("A notification from focusctl history, by its ID.", valueName: "id"))
    var id: String?

    @OptionGroup var output: JSONOutput<JSONHelp.Object>

    @Option(help: ArgumentHelp("The app (desktop entry or app name).", valueName: "app"))
    var app: String?

    @Option(help: ArgumentHelp("low, normal or critical.", valueName: "urgency"))
    var urgency: String?

    @Option(help: ArgumentHelp("The category hint, e.g. im.received.", valueName: "category"))
    var category: String?

    @Option(help: ArgumentHelp("The summary.", valueName: "text"))
    var summary: String = ""

    @Option(help: ArgumentHelp("The body.", valueName: "text"))
    var body: String = ""

    @Option(name: .customLong("action"), help: ArgumentHelp("An action, repeatable.", valueName: "key=label"))
    var actions: [String] = []

    @Option(name: .customLong("hint"), help: ArgumentHelp("A hint, repeatable (int, byte, double, string, boolean, strings).",
                                                          valueName: "type:name:value"))
    var hints: [String] = []

    @Option(help: ArgumentHelp("Assume this Focus is on.", valueName: "name"))
    var focus: String?

    @Option(help: ArgumentHelp("Decide at this time (HH:MM today, or ISO 8601).", valueName: "time"))
    var at: String?

    @Option(help: ArgumentHelp("Decide from this configuration file here, without a running daemon.", valueName: "path"))
    var config: String?

    func validate() throws {
        guard let id else {
            if app == nil { throw ValidationError("Give a notification ID from focusctl history, or --app APP.") }
            return
        }
        let described = app != nil || urgency != nil || category != nil || !summary.isEmpty || !body.isEmpty
            || !actions.isEmpty || !hints.isEmpty || focus != nil || at != nil || config != nil
        if described {
            throw ValidationError("explain \(id) explains the notification as it was received: give the ID alone, or --app and the rest without an ID.")
        }
    }

    func run() throws {
        if let id { return explainNotification(NotificationIDText.parse(id)) }
        let app = self.app ?? ""
        let request = ExplainRequest(app: app, urgency: urgency, category: category, summary: summary, body: body,
                                     actions: actions, hints: hints, focus: focus, at: at)
        let result: DecisionReport
        if let config {
            let configuration: Configuration
            do { configuration = try Configuration.load(path: config) } catch {
                ControlClient.fail(error.description, code: 1)
            }
            do {
                let decision = try Explanation.decide(request, context: PolicyContext(settings: configuration.policy),
                                                      timeZone: SystemTimeZone.current())
                result = DecisionReport(decision)
            } catch {
                ControlClient.fail("focusctl: \(error.description)", code: 1)
            }
        } else {
            // Check the request here first, so a bad one gets the same words either way.
            do { _ = try request.notification() } catch { ControlClient.fail("focusctl: \(error.description)", code: 1) }
            result = ControlClient().report(DecisionReport.self, .explain(json: JSONText.encode(request))).value
        }
        let assumed = Explanation.assumed(request)
        if output.json {
            print(JSONText.encode(ExplainAnswer(result, assumed: assumed)))
            return
        }
        print(Self.render(result))
        if !assumed.isEmpty {
            print("Assumed (not given):\n" + assumed.map { "  - " + $0.escapingControlCharacters }.joined(separator: "\n"))
        }
    }

    /// `explain ID`: asked of the running daemon, which keeps history.
    private func explainNotification(_ id: UInt32) {
        let (report, text) = ControlClient().report(ExplainIDReport.self, .explainNotification(id: id))
        if output.json { return print(text) }
        print(Self.render(report))
    }

    static func render(_ report: ExplainIDReport) -> String {
        let received = Timestamp.parse(report.received).map { LocalTime.string($0, always: true) } ?? report.received
        let fate = DeliveryOutcome(rawValue: report.decision).map {
            Fate.line(decision: $0, steps: report.steps.map(\.fateStep), closeReason: report.closeReason,
                      closed: report.closed.flatMap(Timestamp.parse),
                      own: report.app == Fate.ownApp,
                      time: { LocalTime.string($0) })
        } ?? report.fate
        var rows = [["Notification", "\(report.id), received \(received)"],
                    ["App", report.app + (report.appSource.map { " (from the \($0))" } ?? "")
                        + (report.via.map { " via \($0)" } ?? "")],
                    ["Summary", report.summary.replacing("\n", with: " ")]]
        var lines: [String] = []
        if let then = report.then {
            if then.appName != report.app { rows.append(["App name", then.appName.isEmpty ? "(empty)" : then.appName]) }
            rows.append(["Door", then.door])
            rows.append(["Hints", then.hints.isEmpty ? "none" : then.hints.joined(separator: " ")])
            rows.append(["Actions", then.actions.isEmpty ? "none" : then.actions.joined(separator: " ")])
            var state = [then.focus.map { "\($0) was on" } ?? "no Focus was on"]
            if then.silent { state.append("silent mode on") }
            if then.screenLocked { state.append("screen locked") }
            rows.append(["Then", state.joined(separator: ", ")])
            rows.append(["Decision", "\(report.decision), level \(report.level)"])
            rows.append(["Fate", fate])
            lines.append(Table.render(rows))
            lines.append("Why then:")
            lines += then.trace.enumerated().map { "  \($0.offset + 1). \($0.element.escapingControlCharacters)" }
        } else {
            rows.append(["Decision", "\(report.decision), level \(report.level)"])
            rows.append(["Fate", fate])
            lines.append(Table.render(rows))
            lines.append("Received before focus-bridge kept hints, actions and the Focus of each notification: "
                         + "\"now\" is decided from its app, summary and body alone.")
        }
        lines.append("Now it would be: \(report.now.decision), level \(report.now.level)".escapingControlCharacters)
        lines.append("Why now:")
        lines += report.now.trace.enumerated().map { "  \($0.offset + 1). \($0.element.escapingControlCharacters)" }
        return lines.joined(separator: "\n")
    }

    static func render(_ result: DecisionReport) -> String {
        let actions = result.actions.map { "\($0.key)=\"\($0.label)\"" }
        var sound = "urgency \(result.urgency)"
        if result.suppressSound { sound += ", no sound" }
        if result.previewHidden { sound += ", preview hidden" }
        var rows = [
            ["App", result.app + (result.via.map { " via \($0)" } ?? "")],
            ["Level", result.level],
            ["Decision", result.decision],
            ["Forwarded", sound],
            ["Actions", actions.isEmpty ? "none" : actions.joined(separator: " ")],
        ]
        if let person = result.communication?.person { rows.insert(["From", person], at: 1) }
        let trace = result.trace.enumerated().map { "  \($0.offset + 1). \($0.element.escapingControlCharacters)" }
        return Table.render(rows) + "\nWhy:\n" + trace.joined(separator: "\n")
    }
}
