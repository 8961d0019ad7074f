import FocusBridgeCore
import FocusBridgeDBus
import Foundation

/// Finds out which process is behind each client connection, once per connection.
///
/// The first call from a connection waits for the bus to tell its PID; later calls from the same
/// connection use the answer at once, and calls keep their order either way.
final class SenderDirectory {
    private let bus: BusConnection
    private var known: [String: ProcessIdentity?] = [:]
    private var waiting: [String: [(ProcessIdentity?) -> Void]] = [:]
    /// The app keys each connection's notifications named: a connection may close what any of
    /// its apps sent, from whichever process.
    private var appKeys: [String: Set<String>] = [:]

    init(bus: BusConnection) {
        self.bus = bus
        // Forget connections when they leave the bus (their unique names are never reused).
        bus.subscribe(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
                      member: "NameOwnerChanged", path: "/org/freedesktop/DBus") { [weak self] signal in
            guard let name = signal.parameters.child(0).string, name.hasPrefix(":"),
                  signal.parameters.child(2).string?.isEmpty == true else { return }
            self?.known[name] = nil
            self?.appKeys[name] = nil
        }
    }

    /// Calls `body` with the identity of `sender`'s process (nil when the bus cannot tell).
    func withIdentity(of sender: String, _ body: @escaping (ProcessIdentity?) -> Void) {
        if let identity = known[sender] { return body(identity) }
        if waiting[sender] != nil { waiting[sender]!.append(body); return }
        waiting[sender] = [body]
        bus.processID(of: sender) { [weak self] pid in
            guard let self else { return }
            let identity = pid.map(Self.identity(ofProcess:))
            if self.bus.uniqueName != sender { self.known[sender] = identity }
            for body in self.waiting.removeValue(forKey: sender) ?? [] { body(identity) }
        }
    }

    func remember(appKey: String, for sender: String) {
        appKeys[sender, default: []].insert(appKey)
    }

    func appKeys(of sender: String) -> Set<String> { appKeys[sender] ?? [] }

    /// Reads what Linux tells about a process.
    static func identity(ofProcess pid: UInt32) -> ProcessIdentity {
        let proc = "/proc/\(pid)"
        return ProcessIdentity(
            processID: pid,
            flatpakInfo: try? String(contentsOfFile: "\(proc)/root/.flatpak-info", encoding: .utf8),
            cgroup: try? String(contentsOfFile: "\(proc)/cgroup", encoding: .utf8),
            executablePath: try? FileManager.default.destinationOfSymbolicLink(atPath: "\(proc)/exe"))
    }
}
