import ArgumentParser
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeJSON
import FocusBridgeTime

/// `focusctl summary [--json]` and `focusctl summary deliver`.
struct SummaryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "summary", abstract: "Show what the next scheduled summary holds, or deliver it now.",
        subcommands: [Show.self, Deliver.self], defaultSubcommand: Show.self)

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "show", abstract: "Show what the next summary holds.")

        @OptionGroup var output: JSONOutput<JSONHelp.Object>

        func run() throws {
            let (summary, text) = ControlClient().report(SummaryReport.self, .summary)
            if output.json {
                print(text)
                return
            }
            let next = summary.next.flatMap(Timestamp.parse).map { LocalTime.string($0) } ?? "none scheduled"
            print("Next summary: \(next); \(summary.count) notification\(summary.count == 1 ? "" : "s") held for it.")
            if let body = summary.digest?.body {
                print(body.split(separator: "\n").map { "  " + $0.escapingControlCharacters }.joined(separator: "\n"))
            }
        }
    }

    struct Deliver: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "deliver",
                                                        abstract: "Deliver the summary now and say how many it held.")

        @OptionGroup var output: JSONOutput<JSONHelp.Delivered>

        func run() throws {
            let count = ControlClient().call(.deliverSummary).child(0).uint32 ?? 0
            if output.json { return print(JSONText.encode(["delivered": count])) }
            print(count == 0 ? "Nothing was held for the summary; nothing was delivered."
                  : "Summary delivered: \(count) notification\(count == 1 ? "" : "s") in one notification.")
        }
    }
}
