import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import Foundation

/// Control1's calls are built as `Variant` bodies (Control1Request, FocusBridgeControl).
extension Variant: Control1Body {}

/// One benchmark run: sets up the buses and processes, measures, prints the table and writes
/// the JSON.
struct Bench {
    let options: Run
    private var processes: [Subprocess] = []
    private var results: [String: Any] = [:]
    private var rows: [(String, String)] = []
    private var verdicts: [(String, Bool)] = []
    private let scratch = NSTemporaryDirectory() + "focus-bench-\(getpid())"

    init(options: Run) { self.options = options }

    mutating func runAll() throws {
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let config = scratch + "/config.toml"
        // One app per throughput client, so that History (at most 1000 rows per call) can count
        // each client's notifications.
        let heldApps = (0..<Self.throughputClients).map { "[apps.bench-held-\($0)]\ndelivery = \"summary\"\n" }
        // An app's "summary" holds only when the summary has times (without, it delivers at
        // once): one twelve hours from now, so that none comes during the run.
        var now = time(nil)
        var local = tm()
        localtime_r(&now, &local)
        let summaryTime = String(format: "%02d:%02d", (local.tm_hour + 12) % 24, local.tm_min)
        try ("""
        [general]
        rate-limit = 0          # measure the bridge, not its flood control

        [summary]
        times = ["\(summaryTime)"]

        """ + heldApps.joined()).write(toFile: config, atomically: true, encoding: .utf8)

        let (clientBus, clientAddress) = try Harness.bus(config: options.busConfig)
        let (daemonBus, daemonAddress) = try Harness.bus(config: options.busConfig)
        processes += [clientBus, daemonBus]
        let me = CommandLine.arguments[0].contains("/") ? CommandLine.arguments[0]
            : (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "focus-bench"
        processes.append(try Subprocess([me, "null-daemon", "--address", daemonAddress]))
        let bridge = try Subprocess([options.bridge, "--downstream", "address", "--downstream-address", daemonAddress,
                                     "--config", config, "--state-dir", scratch + "/state"],
                                    environment: ["DBUS_SESSION_BUS_ADDRESS": clientAddress])
        processes.append(bridge)
        let clientConnection = try VariantConnection.connect(address: clientAddress)
        try Harness.waitForName("org.freedesktop.Notifications", on: clientConnection)
        let client = Client(bus: clientConnection, destination: "org.freedesktop.Notifications")
        try waitConnected(client)
        let pid = bridge.processID ?? 0
        record("memory_idle_mib", Harness.residentMiB(pid), "Resident memory, idle", unit: "MiB")
        record("memory_idle_anon_mib", Harness.residentMiB(pid, field: "RssAnon"), "  of which anonymous (RssAnon)", unit: "MiB")

        // Latency, in one run: the bare bus round trip is the yardstick.
        let n = options.samples
        let ping = client.sequential(n, method: "Ping", interface: "org.freedesktop.DBus.Peer", arguments: { nil }, replyType: nil)
        let notify = client.sequential(n, method: "Notify", arguments: { Client.notifyArguments(app: "bench", summary: "latency") },
                                       replyType: "(u)")
        let image = Client.imageHints()
        let notifyImage = client.sequential(n / 4, method: "Notify",
                                            arguments: { Client.notifyArguments(app: "bench", summary: "image", hints: image) },
                                            replyType: "(u)")
        let capabilities = client.sequential(n, method: "GetCapabilities", arguments: { nil }, replyType: "(as)")
        latency("ping", ping, "Peer.Ping to the bridge")
        latency("notify", notify, "Notify through the bridge")
        latency("notify_image", notifyImage, "Notify with 64×64 image-data")
        latency("get_capabilities", capabilities, "GetCapabilities")
        let ratio = notify.median / ping.median
        record("notify_over_ping", ratio, "Notify / Ping (median)", unit: "×")
        verdict("Notify ≤ 1.5 × Ping", ratio <= 1.5)

        // Throughput: 8 clients pipelining, to the null daemon and to the summary (held).
        let clients = try (0..<Self.throughputClients).map { _ in Client(bus: try VariantConnection.connect(address: clientAddress),
                                                    destination: "org.freedesktop.Notifications") }
        try throughput("null", clients: clients, app: "bench-throughput", status: client)
        try throughput("held", clients: clients, app: "bench-held", status: client)

        // Memory under load: many held, then all delivered (Show All on the digest).
        settle(client)
        let before = try status(client)
        _ = Client.pipelined(clients, count: options.held / clients.count, method: "Notify",
                             arguments: { c, i in Client.notifyArguments(app: "bench-held-\(c)", summary: "held \(c)-\(i)") },
                             replyType: "(u)")
        record("memory_held_mib", Harness.residentMiB(pid), "Resident memory, \(options.held) held", unit: "MiB")
        let daemon = Client(bus: try VariantConnection.connect(address: daemonAddress), destination: "org.freedesktop.Notifications")
        let deliver = Control1Method.deliverSummary
        let summarised = try client.bus.callSync(ControlNames.busName, ControlNames.path, ControlNames.interface,
                                                 deliver.rawValue, replyType: deliver.replyType).child(0).uint32 ?? 0
        verdict("the \(options.held) held were held for the summary", Int(summarised) >= options.held)
        settle(client)
        _ = daemon.sequential(1, method: "InvokeOnLastDigest", arguments: { .tuple([.string("show-all")]) }, replyType: nil)
        let target = counts(before)["delivered"]! + Int(summarised) + 1
        progress("Show All on a digest of \(summarised); waiting for \(target) delivered")
        let replayed = Harness.wait(timeout: 600) { (try? self.counts(self.status(client))["delivered"]) ?? 0 >= target }
        if !replayed { progress("not all were delivered: \((try? self.counts(self.status(client))) ?? [:])") }
        record("memory_delivered_mib", Harness.residentMiB(pid), "Resident memory, after delivering them", unit: "MiB")
        verdict("≤ 12 MiB idle", (results["memory_idle_mib"] as? Double ?? 99) <= 12)

        // Idle: every thread's context switches over a quiet stretch.
        let quietStart = Harness.contextSwitches(pid)
        usleep(UInt32(options.idleSeconds) * 1_000_000)
        let wakeups = Harness.contextSwitches(pid) - quietStart
        record("idle_wakeups", Double(wakeups), "Wake-ups in \(options.idleSeconds) s idle", unit: "")
        verdict("no periodic wake-ups (0)", wakeups == 0)

        try startupTime(clientAddress: clientAddress)
        if !options.noDunst { try dunst() }
        try write()
    }

    // MARK: Measurements

    static let throughputClients = 8

    private mutating func throughput(_ name: String, clients: [Client], app: String, status client: Client) throws {
        let before = counts(try status(client))
        let run = Client.pipelined(clients, count: options.perClient, method: "Notify",
                                   arguments: { c, i in Client.notifyArguments(app: "\(app)-\(c)", summary: "\(name) \(c)-\(i)") },
                                   replyType: "(u)")
        let total = clients.count * options.perClient
        let perSecond = Double(run.answered) / run.seconds
        let history = try clients.indices.reduce(0) { $0 + (try historyCount(client, app: "\(app)-\($1)")) }
        record("throughput_\(name)_per_s", perSecond, "Notify/s, 8 clients, \(name == "held" ? "held for the summary" : "to a null daemon")",
               unit: "/s")
        results["throughput_\(name)_answered"] = run.answered
        results["throughput_\(name)_in_history"] = history
        rows.append(("  answered / in history", "\(run.answered) / \(history) of \(total)"))
        verdict("≥ 12,000 Notify/s (\(name))", perSecond >= 12_000)
        verdict("every one in history (\(name))", history >= total && run.answered == total)
        _ = before
    }

    private mutating func startupTime(clientAddress: String) throws {
        var samples: [Double] = []
        for round in 0..<10 {
            let (bus, address) = try Harness.bus(config: options.busConfig)
            defer { Harness.stop(bus) }
            let watch = try NameWatch(address: address)
            let start = Stopwatch.now()
            let process = try Subprocess([options.bridge, "--downstream", "log", "--config", "/nonexistent",
                                          "--state-dir", scratch + "/startup-\(round)"],
                                         environment: ["DBUS_SESSION_BUS_ADDRESS": address])
            Harness.wait(timeout: 10) { watch.owned }
            samples.append(Stopwatch.now() - start)
            Harness.stop(process)
        }
        let distribution = Distribution(samples: samples)
        record("startup_ms", distribution.median * 1000, "Exec to name owned (median of 10)", unit: "ms")
        verdict("≤ 150 ms to name owned", distribution.median <= 0.150)
    }

    private mutating func dunst() throws {
        guard let display = startXvfb() else {
            rows.append(("dunst", "skipped: no Xvfb"))
            return
        }
        let rc = scratch + "/dunstrc"
        try """
        [global]
        notification_limit = 5
        idle_threshold = 0
        stack_duplicates = false
        [urgency_normal]
        timeout = 1
        """.write(toFile: rc, atomically: true, encoding: .utf8)
        let (dunstBus, dunstAddress) = try Harness.bus(config: options.busConfig)
        processes.append(dunstBus)
        processes.append(try Subprocess(["dunst", "-config", rc],
                                        environment: ["DBUS_SESSION_BUS_ADDRESS": dunstAddress, "DISPLAY": display]))
        let direct = Client(bus: try VariantConnection.connect(address: dunstAddress), destination: "org.freedesktop.Notifications")
        try Harness.waitForName("org.freedesktop.Notifications", on: direct.bus)
        let (bridgeBus, bridgeAddress) = try Harness.bus(config: options.busConfig)
        processes.append(bridgeBus)
        processes.append(try Subprocess([options.bridge, "--downstream", "address", "--downstream-address", dunstAddress,
                                         "--config", "/nonexistent", "--state-dir", scratch + "/dunst-state"],
                                        environment: ["DBUS_SESSION_BUS_ADDRESS": bridgeAddress]))
        let bridged = Client(bus: try VariantConnection.connect(address: bridgeAddress), destination: "org.freedesktop.Notifications")
        try Harness.waitForName("org.freedesktop.Notifications", on: bridged.bus)
        try waitConnected(bridged)
        // Alternate the two, so both see the same machine and the same screen.
        var directSamples: [Double] = []
        var bridgedSamples: [Double] = []
        for round in 0..<200 {
            let arguments = { Client.notifyArguments(app: "bench", summary: "dunst \(round)") }
            directSamples += direct.sequential(1, method: "Notify", arguments: arguments, replyType: "(u)").samples
            bridgedSamples += bridged.sequential(1, method: "Notify", arguments: arguments, replyType: "(u)").samples
        }
        let directDistribution = Distribution(samples: directSamples)
        let bridgedDistribution = Distribution(samples: bridgedSamples)
        latency("notify_direct_dunst", directDistribution, "Notify straight to dunst")
        latency("notify_bridge_dunst", bridgedDistribution, "Notify through the bridge to dunst")
        let ratio = bridgedDistribution.median / directDistribution.median
        record("bridge_over_direct_dunst", ratio, "Through the bridge / direct to dunst (median)", unit: "×")
        verdict("Notify through the bridge below direct to dunst", ratio < 1)
    }

    private mutating func startXvfb() -> String? {
        for number in 90..<110 where !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
            && !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") {
            guard let xvfb = try? Subprocess(["Xvfb", ":\(number)", "-screen", "0", "1280x800x24", "-nolisten", "tcp"]) else { return nil }
            processes.append(xvfb)
            let socket = "/tmp/.X11-unix/X\(number)"
            let up = Harness.wait(timeout: 10) { FileManager.default.fileExists(atPath: socket) }
            return up ? ":\(number)" : nil
        }
        return nil
    }

    // MARK: Helpers

    private func progress(_ text: String) {
        FileHandle.standardError.write(Data("focus-bench: \(text)\n".utf8))
    }

    private func status(_ client: Client) throws -> [String: Any] {
        let reply = try client.bus.callSync(ControlNames.busName, ControlNames.path,
                                            ControlNames.interface, Control1Method.status.rawValue, replyType: Control1Method.status.replyType)
        return (try JSONSerialization.jsonObject(with: Data((reply.child(0).string ?? "{}").utf8))) as? [String: Any] ?? [:]
    }

    private func counts(_ status: [String: Any]) -> [String: Int] {
        (status["counts"] as? [String: Any] ?? [:]).compactMapValues { $0 as? Int }
    }

    /// Waits until the bridge has nothing queued or in flight.
    private func settle(_ client: Client) {
        Harness.wait(timeout: 120) {
            guard let counts = try? self.counts(self.status(client)) else { return false }
            return counts["queued"] == 0 && counts["in-flight"] == 0
        }
    }

    private func waitConnected(_ client: Client) throws {
        let connected = Harness.wait(timeout: 15) {
            ((try? self.status(client))?["downstream"] as? [String: Any])?["connected"] as? Bool == true
        }
        if !connected { throw BenchError("the bridge did not connect to its daemon") }
    }

    private func historyCount(_ client: Client, app: String) throws -> Int {
        let request = Control1Request.history(limit: UInt32.max, app: app)
        let reply = try client.bus.callSync(ControlNames.busName, ControlNames.path,
                                            ControlNames.interface, request.method.rawValue,
                                            request.body(), replyType: request.method.replyType,
                                            timeoutMilliseconds: 120_000)
        return ((try JSONSerialization.jsonObject(with: Data((reply.child(0).string ?? "[]").utf8))) as? [Any])?.count ?? 0
    }

    private mutating func latency(_ key: String, _ distribution: Distribution, _ label: String) {
        results[key] = distribution.json
        rows.append((label, String(format: "median %.3f ms, p99 %.3f ms (n=%d)", distribution.median * 1000,
                                   distribution.p99 * 1000, distribution.samples.count)))
    }

    private mutating func record(_ key: String, _ value: Double, _ label: String, unit: String) {
        results[key] = value
        rows.append((label, String(format: value >= 100 ? "%.0f %@" : "%.2f %@", value, unit)))
    }

    private mutating func verdict(_ target: String, _ met: Bool) {
        verdicts.append((target, met))
    }

    private func write() throws {
        var document = results
        document["targets"] = Dictionary(uniqueKeysWithValues: verdicts.map { ($0.0, $0.1) })
        document["machine"] = [
            "cores": ProcessInfo.processInfo.activeProcessorCount,
            "memory_gib": Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824,
            "kernel": ProcessInfo.processInfo.operatingSystemVersionString,
        ] as [String: Any]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        try FileManager.default.createDirectory(atPath: (options.output as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: options.output))
        let width = rows.map(\.0.count).max() ?? 0
        print("| measurement | result |\n|---|---|")
        for (label, value) in rows { print("| \(label.padding(toLength: width, withPad: " ", startingAt: 0)) | \(value) |") }
        print("\n| target | met |\n|---|---|")
        for (target, met) in verdicts { print("| \(target) | \(met ? "yes" : "NO") |") }
        print("\nwritten: \(options.output)")
    }

    mutating func stopAll() {
        for process in processes.reversed() { Harness.stop(process) }
        processes.removeAll()
        try? FileManager.default.removeItem(atPath: scratch)
    }
}
