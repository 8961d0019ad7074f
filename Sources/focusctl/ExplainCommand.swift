import ArgumentParser
import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import Foundation

/// `focusctl explain`: what would happen to such a notification, rule by rule, without sending
/// it — asked of the running daemon, or decided here from `--config` by the same core code.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "explain",
                                                    abstract: "Show what would happen to a notification, rule by rule.")

    @Flag(help: "Print one JSON object.")
    var json = false

    @Option(help: ArgumentHelp("The app (desktop entry or app name).", valueName: "app"))
    var app: String

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

    func run() throws {
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
                                                      timeZone: .current)
                result = DecisionReport(decision)
            } catch {
                ControlClient.fail("focusctl: \(error.description)", code: 1)
            }
        } else {
            // Check the request here first, so a bad one gets the same words either way.
            do { _ = try request.notification() } catch { ControlClient.fail("focusctl: \(error.description)", code: 1) }
            result = ControlClient().report(DecisionReport.self, "Explain", .tuple([.string(JSONText.encode(request))])).value
        }
        if json {
            print(JSONText.encode(result))
            return
        }
        print(Self.render(result))
    }

    static func render(_ result: DecisionReport) -> String {
        let actions = result.actions.map { "\($0.key)=\"\($0.label)\"" }
        var sound = "urgency \(result.urgency)"
        if result.suppressSound { sound += ", no sound" }
        if result.previewHidden { sound += ", preview hidden" }
        var rows = [
            ["App", result.app],
            ["Level", result.level],
            ["Decision", result.decision],
            ["Forwarded", sound],
            ["Actions", actions.isEmpty ? "none" : actions.joined(separator: " ")],
        ]
        if let person = result.communication?.person { rows.insert(["From", person], at: 1) }
        let trace = result.trace.enumerated().map { "  \($0.offset + 1). \($0.element)" }
        return Table.render(rows) + "\nWhy:\n" + trace.joined(separator: "\n")
    }
}
