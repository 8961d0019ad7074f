import FocusBridgeDBus
import FocusBridgeLoop
import Foundation

/// Starting and stopping the parts a benchmark runs against: private buses, the bridge, a null
/// daemon, dunst on Xvfb.
enum Harness {
    /// A private dbus-daemon with no service directories; returns it and its address.
    static func bus(config: String) throws -> (Subprocess, String) {
        let process = try Subprocess(["dbus-daemon", "--config-file=\(config)", "--nofork", "--print-address=1"],
                                     captureStandardOutput: true)
        guard let address = process.readLine()?.trimmingCharacters(in: .whitespacesAndNewlines), !address.isEmpty else {
            throw BenchError("dbus-daemon did not start")
        }
        return (process, address)
    }

    /// Runs the main loop until `done` or `timeout` seconds pass; false on timeout. `done` is
    /// checked after every event and at least every 20 ms (some conditions change elsewhere).
    @discardableResult
    static func wait(timeout: Double, until done: () -> Bool) -> Bool {
        let deadline = Stopwatch.now() + timeout
        while !done() && Stopwatch.now() < deadline {
            var ticked = false
            let tick = MainLoop.after(milliseconds: 20) { ticked = true }
            MainLoop.iterate(blocking: true)
            if !ticked { MainLoop.cancel(tick) }
        }
        return done()
    }

    /// Waits until `name` has an owner on `bus`.
    static func waitForName(_ name: String, on bus: VariantConnection, timeout: Double = 15) throws {
        var owned = false
        bus.watchName(name) { owner in if owner != nil { owned = true } }
        guard wait(timeout: timeout, until: { owned }) else { throw BenchError("\(name) did not appear") }
    }

    static func stop(_ process: Subprocess?) {
        guard let process else { return }
        process.send(signal: SIGTERM)
        if !process.waitForExit(milliseconds: 3_000) {
            process.send(signal: SIGKILL)
            _ = process.waitForExit(milliseconds: 1_000)
        }
    }

    /// Resident memory of a process, in MiB (`field`: `VmRSS`, or `RssAnon` for its own memory
    /// without the file-backed pages of the binary and libraries).
    static func residentMiB(_ pid: Int32, field: String = "VmRSS") -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
              let kib = Double(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "") else { return .nan }
        return kib / 1024
    }

    /// Context switches of every thread of a process (each one a wake-up).
    static func contextSwitches(_ pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(0) { total, task in
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { return total }
            return total + status.split(separator: "\n")
                .filter { $0.hasPrefix("voluntary_ctxt_switches:") || $0.hasPrefix("nonvoluntary_ctxt_switches:") }
                .compactMap { Int($0.split(separator: "\t").last ?? "") }
                .reduce(0, +)
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Who owns `org.freedesktop.Notifications` on a bus, watched from before the bridge starts: the
/// start-up figures time exec to `owned`.
final class NameWatch {
    let connection: VariantConnection
    private(set) var owned = false

    /// Connects to the bus at `address` and waits (5 s at most) for its first answer about the name.
    init(address: String) throws {
        connection = try VariantConnection.connect(address: address)
        var ready = false
        connection.watchName("org.freedesktop.Notifications") { [unowned self] owner in
            ready = true
            if owner != nil { owned = true }
        }
        Harness.wait(timeout: 5) { ready }
    }
}
