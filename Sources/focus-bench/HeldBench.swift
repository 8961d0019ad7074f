import ArgumentParser
import FocusBridgeControl
import FocusBridgeDBus
import FocusBridgeLoop
import Foundation

/// `focus-bench held`: what a bridge costs while it keeps a lot, each binary in the same run
/// (the machine is shared: only figures of one run compare). For each binary, from a fresh
/// state folder: `Notify` latency with none held, of a notification delivered and of one held
/// itself; `--held` notifications held for the summary; both again (the held one's ratio is
/// the figure: during a Focus every `Notify` is held); a restart on that state folder (exec to
/// name owned, and to the first `Status` answered); `DismissHeld` of them all and how long a
/// `Notify` sent with it waits; then `--apps` distinct 256-byte app names and how long `Apps`
/// and a mistyped `SetAppChoice` take, and a `Notify` sent with `Apps` waits. Writes
/// bench/held.json.
struct HeldBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "held", abstract: "Notify latency with many held against none, start and release with them, Apps with many names.")

    @Option(help: "The focus-bridge binary.") var bridge = ".build/release/focus-bridge"
    @Option(help: "Another focus-bridge binary for the same run, as LABEL=PATH (an earlier commit's).") var also: [String] = []
    @Option(help: "The private bus configuration.") var busConfig = "dbus/focus-bridge-private-bus.conf"
    @Option(help: "Where to write the results.") var output = "bench/held.json"
    @Option(help: "Notifications held.") var held = 20_000
    @Option(help: "Notify round trips per latency measurement.") var samples = 300
    @Option(help: "Milliseconds between an answer and the next Notify.") var gap = 5
    @Option(help: "Distinct 256-byte app names sent before Apps is timed (0: skip).") var apps = 6000
    @Option(help: "Copy the state folder here once the held are stored (to profile a start with them).") var keepState: String?

    func run() throws {
        var binaries = [(label: "this build", path: bridge)]
        for pair in also {
            guard let equals = pair.firstIndex(of: "=") else { throw ValidationError("--also takes LABEL=PATH") }
            binaries.append((String(pair[..<equals]), String(pair[pair.index(after: equals)...])))
        }
        var document: [String: Any] = [:]
        var rows: [[String]] = []
        for binary in binaries {
            var run = HeldRun(options: self, bridge: binary.path)
            defer { run.stopAll() }
            let result = try run.measure()
            document[binary.label] = result.json
            rows.append([binary.label] + result.row)
        }
        let header = ["binary", "held Notify, none held", "held Notify, \(held) held", "ratio",
                      "delivered Notify, none → \(held) held", "restart: name owned",
                      "restart: Status answered", "RSS after restart", "DismissHeld", "a Notify meanwhile",
                      "Apps (\(apps) names)", "a Notify meanwhile", "mistyped app"]
        print("| " + header.joined(separator: " | ") + " |")
        print("|" + String(repeating: "---|", count: header.count))
        for row in rows { print("| " + row.joined(separator: " | ") + " |") }
        document["held"] = held
        document["samples"] = samples
        document["apps"] = apps
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        try FileManager.default.createDirectory(atPath: (output as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: output))
        print("\nwritten: \(output)")
    }
}

/// One binary's measurements.
private struct HeldRun {
    let options: HeldBenchCommand
    let bridge: String
    var binaryIsFirst: Bool { bridge == options.bridge }
    private var processes: [Subprocess] = []
    private var bridgeProcess: Subprocess?
    private let scratch = NSTemporaryDirectory() + "focus-bench-held-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    init(options: HeldBenchCommand, bridge: String) {
        self.options = options
        self.bridge = bridge
    }

    struct Result {
        var none = Distribution(samples: [])
        var many = Distribution(samples: [])
        var noneDelivered = Distribution(samples: [])
        var manyDelivered = Distribution(samples: [])
        var heldCount = 0
        var nameOwned = Double.nan
        var statusAnswered = Double.nan
        var restartRSS = Double.nan
        var dismiss = Double.nan
        var dismissNotify = Double.nan
        var apps = Double.nan
        var appsListed = 0
        var appsNotify = Double.nan
        var mistyped = Double.nan
        var mistypedAnswer = ""

        /// The figure: a `Notify` that is held itself (as every one during a Focus), with many
        /// held against none.
        var ratio: Double { many.median / none.median }
        var ratioDelivered: Double { manyDelivered.median / noneDelivered.median }

        var json: [String: Any] {
            let values: [String: Any] = ["notify_none_held": none.json, "notify_many_held": many.json, "held": heldCount, "ratio": ratio,
             "delivered_notify_none_held": noneDelivered.json, "delivered_notify_many_held": manyDelivered.json,
             "delivered_ratio": ratioDelivered,
             "restart_name_owned_ms": nameOwned * 1000, "restart_status_answered_ms": statusAnswered * 1000,
             "restart_rss_mib": restartRSS, "dismiss_held_ms": dismiss * 1000, "notify_during_dismiss_ms": dismissNotify * 1000,
             "apps_ms": apps * 1000, "apps_listed": appsListed, "notify_during_apps_ms": appsNotify * 1000,
             "mistyped_app_ms": mistyped * 1000, "mistyped_app_answer": mistypedAnswer]
            // JSON has no NaN: what was not measured is left out.
            return values.filter { !(($0.value as? Double)?.isNaN ?? false) }
        }

        var row: [String] {
            func ms(_ seconds: Double) -> String { String(format: seconds < 0.01 ? "%.3f ms" : "%.0f ms", seconds * 1000) }
            return [ms(none.median), ms(many.median) + " (\(heldCount))", String(format: "%.2f×", ratio),
                    ms(noneDelivered.median) + " → " + ms(manyDelivered.median) + String(format: " (%.2f×)", ratioDelivered),
                    ms(nameOwned),
                    ms(statusAnswered), String(format: "%.1f MiB", restartRSS), ms(dismiss), ms(dismissNotify),
                    ms(apps) + " (\(appsListed) listed)", ms(appsNotify), ms(mistyped)]
        }
    }

    mutating func measure() throws -> Result {
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let config = scratch + "/config.toml"
        // "summary" holds only when the summary has a time: twelve hours from now, none comes.
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        try """
        [general]
        rate-limit = 0

        [summary]
        times = ["\(String(format: "%02d:%02d", (local.tm_hour + 12) % 24, local.tm_min))"]

        [apps.bench-held]
        delivery = "summary"

        """.write(toFile: config, atomically: true, encoding: .utf8)
        let (clientBus, clientAddress) = try Harness.bus(config: options.busConfig)
        let (daemonBus, daemonAddress) = try Harness.bus(config: options.busConfig)
        processes += [clientBus, daemonBus]
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        processes.append(try Subprocess([me, "null-daemon", "--address", daemonAddress]))
        let arguments = [bridge, "--downstream", "address", "--downstream-address", daemonAddress,
                         "--config", config, "--state-dir", scratch + "/state"]
        let environment = ["DBUS_SESSION_BUS_ADDRESS": clientAddress]
        bridgeProcess = try Subprocess(arguments, environment: environment)
        let connection = try VariantConnection.connect(address: clientAddress)
        try Harness.waitForName("org.freedesktop.Notifications", on: connection)
        let client = Client(bus: connection, destination: "org.freedesktop.Notifications")
        try waitConnected(client)
        var result = Result()

        progress("\(bridge): Notify with none held")
        _ = notifyLatency(client, count: 20)
        result.noneDelivered = notifyLatency(client, count: options.samples)
        result.none = notifyLatency(client, count: options.samples, app: "bench-held")
        settle(client)

        progress("holding \(options.held)")
        let clients = try (0..<8).map { _ in Client(bus: try VariantConnection.connect(address: clientAddress),
                                                    destination: "org.freedesktop.Notifications") }
        _ = Client.pipelined(clients, count: options.held / clients.count, method: "Notify",
                             arguments: { c, i in Client.notifyArguments(app: "bench-held", summary: "held \(c)-\(i)") },
                             replyType: "(u)")
        settle(client)
        result.heldCount = counts(client)["held-summary"] ?? 0
        progress("Notify with \(result.heldCount) held")
        _ = notifyLatency(client, count: 20)
        result.manyDelivered = notifyLatency(client, count: options.samples)
        result.many = notifyLatency(client, count: options.samples, app: "bench-held")

        progress("restart with them")
        Harness.stop(bridgeProcess)
        if let keep = options.keepState, binaryIsFirst {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(atPath: scratch + "/state", toPath: keep)
        }
        let (bus, address) = try Harness.bus(config: options.busConfig)
        processes.append(bus)
        let watch = try NameWatch(address: address)
        let watcher = watch.connection
        let start = Stopwatch.now()
        bridgeProcess = try Subprocess(arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": address])
        Harness.wait(timeout: 60) { watch.owned }
        result.nameOwned = Stopwatch.now() - start
        _ = try? status(Client(bus: watcher, destination: "org.freedesktop.Notifications"), timeout: 60_000)
        result.statusAnswered = Stopwatch.now() - start
        result.restartRSS = Harness.residentMiB(bridgeProcess?.processID ?? 0)
        let restarted = Client(bus: watcher, destination: "org.freedesktop.Notifications")
        try waitConnected(restarted)
        let heldAgain = counts(restarted)["held-summary"] ?? 0
        if heldAgain != result.heldCount { progress("after the restart \(heldAgain) held, not \(result.heldCount)") }

        progress("DismissHeld of \(heldAgain), a Notify sent with it")
        (result.dismiss, result.dismissNotify) = during(restarted, Control1Method.dismissHeld)

        if options.apps > 0 {
            progress("\(options.apps) app names of 256 bytes")
            let names = (0..<options.apps).map { Self.appName($0) }
            let senders = try (0..<8).map { _ in Client(bus: try VariantConnection.connect(address: address),
                                                        destination: "org.freedesktop.Notifications") }
            let each = options.apps / senders.count
            _ = Client.pipelined(senders, count: each, method: "Notify",
                                 arguments: { c, i in Client.notifyArguments(app: names[c * each + i],
                                                                             summary: "app \(c)-\(i)") },
                                 replyType: "(u)")
            settle(restarted)
            var listed = 0
            (result.apps, result.appsNotify) = during(restarted, Control1Method.apps) { reply in
                listed = ((try? JSONSerialization.jsonObject(with: Data(reply.utf8))) as? [Any])?.count ?? 0
            }
            result.appsListed = listed
            // One letter changed in a name among the last sent: refused with "did you mean".
            var mistyped = Array(names[names.count - 1])
            mistyped[100] = "#"
            let began = Stopwatch.now()
            let request = Control1Request.setAppChoice(app: String(mistyped), key: "delivery", value: "summary", new: false)
            do {
                _ = try restarted.bus.callSync(ControlNames.busName, ControlNames.path, ControlNames.interface,
                                               request.method.rawValue, request.body(),
                                               replyType: request.method.replyType, timeoutMilliseconds: 120_000)
                result.mistypedAnswer = "accepted"
            } catch {
                result.mistypedAnswer = error.message.contains("did you mean") ? "did you mean" : error.message
            }
            result.mistyped = Stopwatch.now() - began
        }
        return result
    }

    /// App name `index`: 256 bytes, distinct in its first characters.
    static func appName(_ index: Int) -> String {
        let head = "bench-app-\(index)-"
        var generator = SplitMix(seed: UInt64(index))
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        return head + String((head.count..<256).map { _ in letters[Int(generator.next() % 26)] })
    }

    /// `method` of Control1 called, and a `Notify` sent right after it on another connection:
    /// how long each took to be answered.
    private func during(_ client: Client, _ method: Control1Method,
                        reply read: @escaping (String) -> Void = { _ in }) -> (call: Double, notify: Double) {
        var callTook = Double.nan
        var notifyTook = Double.nan
        let start = Stopwatch.now()
        client.bus.call(ControlNames.busName, ControlNames.path, ControlNames.interface, method.rawValue, nil,
                        replyType: method.replyType, timeoutMilliseconds: 300_000) { result in
            callTook = Stopwatch.now() - start
            if case .success(let value) = result { read(value.child(0).string ?? "") }
        }
        let notifyStart = Stopwatch.now()
        client.bus.call(client.destination, Client.path, Client.interface, "Notify",
                        Client.notifyArguments(app: "bench", summary: "meanwhile"), replyType: "(u)",
                        timeoutMilliseconds: 300_000) { _ in notifyTook = Stopwatch.now() - notifyStart }
        Harness.wait(timeout: 300) { !callTook.isNaN && !notifyTook.isNaN }
        return (callTook, notifyTook)
    }

    /// `count` Notify round trips of `app` ("bench" is delivered, "bench-held" held), each
    /// `gap` ms after the answer to the one before, as an app sends: the bridge's work after an
    /// answer (what a change of the held counts costs) is done by the time the next comes, so
    /// the next waits for it only if it is long.
    private func notifyLatency(_ client: Client, count: Int, app: String = "bench") -> Distribution {
        var samples: [Double] = []
        var remaining = count
        func next() {
            let started = Stopwatch.now()
            client.bus.call(client.destination, Client.path, Client.interface, "Notify",
                            Client.notifyArguments(app: app, summary: "latency \(remaining)"), replyType: "(u)",
                            timeoutMilliseconds: 60_000) { _ in
                samples.append(Stopwatch.now() - started)
                remaining -= 1
                if remaining > 0 { MainLoop.after(milliseconds: UInt32(options.gap)) { next() } }
            }
        }
        next()
        Harness.wait(timeout: 600) { remaining == 0 }
        return Distribution(samples: samples)
    }

    private func progress(_ text: String) {
        FileHandle.standardError.write(Data("focus-bench held: \(text)\n".utf8))
    }

    private func status(_ client: Client, timeout: Int32 = 30_000) throws -> [String: Any] {
        let reply = try client.bus.callSync(ControlNames.busName, ControlNames.path, ControlNames.interface,
                                            Control1Method.status.rawValue, replyType: Control1Method.status.replyType,
                                            timeoutMilliseconds: timeout)
        return (try JSONSerialization.jsonObject(with: Data((reply.child(0).string ?? "{}").utf8))) as? [String: Any] ?? [:]
    }

    private func counts(_ client: Client) -> [String: Int] {
        ((try? status(client))?["counts"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
    }

    private func settle(_ client: Client) {
        Harness.wait(timeout: 300) {
            let counts = self.counts(client)
            return counts["queued"] == 0 && counts["in-flight"] == 0
        }
    }

    private func waitConnected(_ client: Client) throws {
        let connected = Harness.wait(timeout: 60) {
            ((try? self.status(client))?["downstream"] as? [String: Any])?["connected"] as? Bool == true
        }
        if !connected { throw BenchError("the bridge did not connect to its daemon") }
    }

    mutating func stopAll() {
        Harness.stop(bridgeProcess)
        for process in processes.reversed() { Harness.stop(process) }
        processes.removeAll()
        try? FileManager.default.removeItem(atPath: scratch)
    }
}

/// A small deterministic generator, so every run sends the same names.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
