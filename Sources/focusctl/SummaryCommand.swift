import ArgumentParser
import FocusBridgeCore
import Foundation

/// `focusctl summary [--json]` and `focusctl summary deliver`.
struct SummaryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary", abstract: "Show what the next scheduled summary holds, or deliver it now.",
        subcommands: [Show.self, Deliver.self], defaultSubcommand: Show.self)

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show what the next summary holds.")

        @Flag(help: "Print one JSON object.")
        var json = false

        func run() throws {
            let summary = try ControlClient().json("Summary") as? [String: Any] ?? [:]
            if json {
                print(JSONText.encode(summary))
                return
            }
            let next = (summary["next"] as? String).flatMap(JSONText.parseTimestamp).map(Clock.local) ?? "none scheduled"
            let count = summary["count"] as? Int ?? 0
            print("Next summary: \(next); \(count) notification\(count == 1 ? "" : "s") held for it.")
            if let digest = summary["digest"] as? [String: Any], let body = digest["body"] as? String {
                print(body.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            }
        }
    }

    struct Deliver: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "deliver", abstract: "Deliver the summary now.")

        func run() throws {
            let count = ControlClient().call("DeliverSummary", replyType: "(u)").child(0).uint32 ?? 0
            print(count == 0 ? "Nothing is held for the summary." : "Summary delivered (\(count) notification\(count == 1 ? "" : "s")).")
        }
    }
}
