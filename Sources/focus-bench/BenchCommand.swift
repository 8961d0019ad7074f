import ArgumentParser
import FocusBridgeDBus
import Foundation

/// `focus-bench`: measures the bridge against the bare bus and against dunst used directly, in
/// one run, as ratios (the machines are shared and noisy), and writes bench/results.json.
@main
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "focus-bench", abstract: "Benchmark FocusBridge.",
        subcommands: [Run.self, NullDaemonCommand.self, StoreBenchCommand.self, HeldBenchCommand.self], defaultSubcommand: Run.self)
}

struct NullDaemonCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "null-daemon", abstract: "A daemon that shows nothing.")

    @Option var address: String

    func run() throws { try NullDaemon.run(address: address) }
}

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run every measurement.")

    @Option(help: "The focus-bridge binary.") var bridge = ".build/release/focus-bridge"
    @Option(help: "The private bus configuration.") var busConfig = "dbus/focus-bridge-private-bus.conf"
    @Option(help: "Where to write the results.") var output = "bench/results.json"
    @Option(help: "Round trips per latency measurement.") var samples = 2000
    @Option(help: "Notifications per client in the throughput runs (History counts at most 1000 of each).") var perClient = 1000
    @Option(help: "Held notifications for the memory measurement.") var held = 100_000
    @Option(help: "Seconds of idleness for the wake-up count.") var idleSeconds = 10
    @Flag(help: "Skip dunst (no Xvfb or dunst here).") var noDunst = false

    func run() throws {
        var bench = Bench(options: self)
        defer { bench.stopAll() }
        try bench.runAll()
    }
}
