import ArgumentParser
import FocusBridgeCore
import FocusBridgeStore
import FocusBridgeTime
import Foundation

/// `focus-bench store`: the history insert of each `Notify` alone, as the bridge makes it (one
/// `Store.commit` of one entry, committed by itself), `count` times into a fresh state folder.
/// For instruction counts: run it under `valgrind --tool=callgrind` with two counts and take
/// the difference over the difference in count, so opening and migrating cancel out
/// (docs/BENCHMARKS.md).
struct StoreBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "store", abstract: "Time the history insert of each Notify.")

    @Option(help: "History rows to insert, one commit each.") var count = 1000
    @Option(help: "The state folder (default: a fresh one under /tmp, removed after).") var directory: String?

    func run() throws {
        let folder = directory ?? NSTemporaryDirectory() + "focus-bench-store-\(getpid())"
        defer { if directory == nil { try? FileManager.default.removeItem(atPath: folder) } }
        let store = try Store(directory: folder)
        let start = Instant(timeIntervalSince1970: 1_800_000_000)
        let clock = ContinuousClock()
        let began = clock.now
        for index in 0..<count {
            let entry = HistoryEntry(id: UInt32(index + 1), app: "Bench", summary: "Notification \(index)",
                                     body: "A body of a few words, as most are.", level: .active, decision: .delivered,
                                     received: start + Double(index))
            try store.commit(history: [entry], holds: [])
        }
        let elapsed = clock.now - began
        let micros = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
        print("\(count) history inserts, \(String(format: "%.1f", micros / Double(max(count, 1)))) µs each")
    }
}
