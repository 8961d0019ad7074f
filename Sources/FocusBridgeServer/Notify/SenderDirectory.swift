import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeSystem

/// Who is behind a client connection: its process and its user, as the bus tells.
struct Sender {
    var process: ProcessIdentity?
    var userID: UInt32?

    /// The caller ownership is decided by: the connection, its user and its sandbox.
    func caller(_ connection: String) -> Caller {
        Caller(connection: connection, userID: userID, sandbox: process?.sandbox)
    }
}

/// Finds out which process and user are behind each client connection, once per connection.
///
/// The first call from a connection waits for the bus to tell (`GetConnectionCredentials`);
/// later calls from the same connection use the answer at once, and calls keep their order
/// either way.
final class SenderDirectory {
    private let bus: VariantConnection
    private var known: [String: Sender] = [:]
    private var waiting: [String: [(Sender) -> Void]] = [:]
    /// Called with the unique name of each connection that leaves the bus.
    var connectionLeft: (String) -> Void = { _ in }

    init(bus: VariantConnection) {
        self.bus = bus
        // Forget connections when they leave the bus (their unique names are never reused).
        bus.subscribe(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus",
                      member: "NameOwnerChanged", path: "/org/freedesktop/DBus") { [weak self] signal in
            guard let name = signal.parameters.child(0).string, name.hasPrefix(":"),
                  signal.parameters.child(2).string?.isEmpty == true else { return }
            self?.known[name] = nil
            self?.connectionLeft(name)
        }
    }

    /// Calls `body` with the identity of `sender`'s process (nil when the bus cannot tell).
    func withIdentity(of sender: String, _ body: @escaping (ProcessIdentity?) -> Void) {
        withSender(sender) { body($0.process) }
    }

    /// Calls `body` with what the bus tells about `sender`.
    func withSender(_ sender: String, _ body: @escaping (Sender) -> Void) {
        if let known = known[sender] { return body(known) }
        if waiting[sender] != nil { waiting[sender]!.append(body); return }
        waiting[sender] = [body]
        bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionCredentials",
                 .tuple([.string(sender)]), replyType: "(a{sv})") { [weak self] result in
            guard let self else { return }
            var found = Sender()
            if case .success(let reply) = result {
                for (key, value) in reply.child(0).dictionaryEntries {
                    switch key {
                    case "ProcessID": found.process = value.unboxed.uint32.map(Self.identity(ofProcess:))
                    case "UnixUserID": found.userID = value.unboxed.uint32
                    default: break
                    }
                }
            }
            if self.bus.uniqueName != sender { self.known[sender] = found }
            for body in self.waiting.removeValue(forKey: sender) ?? [] { body(found) }
        }
    }

    /// The most read of each file about a process. A real `/.flatpak-info` is one or two KiB and
    /// `/proc/PID/cgroup` a few lines; anything larger is no identity and is not read.
    static let maxIdentityFileBytes = 64 * 1024

    /// Reads what Linux tells about a process.
    ///
    /// This runs on the main loop, and `/proc/PID/root` is a root the process chose (any process
    /// may enter a namespace of its own and chroot): each file is read only when it is a regular
    /// file, opened non-blocking, and only up to `maxIdentityFileBytes`, so a FIFO or a huge
    /// sparse file there costs other callers nothing. `/.flatpak-info` is never read through a
    /// symbolic link (which would resolve in the bridge's root, not the process's). What is not
    /// read counts as absent.
    static func identity(ofProcess pid: UInt32) -> ProcessIdentity {
        let proc = "/proc/\(pid)"
        func text(_ path: String, followLinks: Bool) -> String? {
            guard let bytes = try? FileReading.readRegularFile(path, limit: maxIdentityFileBytes, followLinks: followLinks)
            else { return nil }
            return String(validating: bytes, as: UTF8.self)
        }
        return ProcessIdentity(
            processID: pid,
            flatpakInfo: text("\(proc)/root/.flatpak-info", followLinks: false),
            cgroup: text("\(proc)/cgroup", followLinks: true),
            executablePath: try? FileStatus.symbolicLinkDestination("\(proc)/exe"))
    }
}
