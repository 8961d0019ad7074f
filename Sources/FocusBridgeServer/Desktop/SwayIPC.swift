import FocusBridgeCore
import FocusBridgeDBus

/// sway's and i3's IPC (`sway-ipc(7)`): one connection subscribed to window events, one that
/// asks for the tree after each; the tree says which window is focused and which is fullscreen.
final class SwayIPC {
    private static let magic = Array("i3-ipc".utf8)
    private static let subscribe: UInt32 = 2
    private static let getTree: UInt32 = 4
    /// The largest message read: a tree of thousands of windows is well under it.
    private static let maxMessage = 8 << 20

    private let path: String
    private let update: (WindowState) -> Void
    private let lost: (String) -> Void
    private var events: LocalSocket?
    private var requests: LocalSocket?
    /// A tree asked for and not yet answered; one more is asked when events came meanwhile.
    private var asking = false
    private var askAgain = false

    init(path: String, update: @escaping (WindowState) -> Void, lost: @escaping (String) -> Void) {
        self.path = path
        self.update = update
        self.lost = lost
    }

    /// Connects both sockets and subscribes; the reason when it cannot.
    func start() -> String? {
        let events: LocalSocket
        let requests: LocalSocket
        switch (LocalSocket.connect(path), LocalSocket.connect(path)) {
        case (.success(let a), .success(let b)): (events, requests) = (a, b)
        case (.failure(let error), _), (_, .failure(let error)): return error.description
        }
        self.events = events
        self.requests = requests
        events.read({ [weak self] buffer in self?.take(&buffer, fromEvents: true) },
                    ended: { [weak self] why in self?.lost("\(self?.path ?? "") — \(why)") })
        requests.read({ [weak self] buffer in self?.take(&buffer, fromEvents: false) },
                      ended: { [weak self] why in self?.lost("\(self?.path ?? "") — \(why)") })
        guard events.write(Self.message(Self.subscribe, Array(#"["window"]"#.utf8))) else { return "cannot subscribe" }
        askTree()
        return nil
    }

    private func askTree() {
        guard !asking else { return askAgain = true }
        asking = true
        _ = requests?.write(Self.message(Self.getTree, []))
    }

    private func take(_ buffer: inout [UInt8], fromEvents: Bool) {
        while let (type, payload) = Self.next(&buffer) {
            if fromEvents {
                // A window event (0x80000003); the subscription's own answer is type 2.
                if type & 0x8000_0000 != 0 { askTree() }
            } else if type == Self.getTree {
                asking = false
                if let state = SwayTree.state(payload) { update(state) }
                if askAgain {
                    askAgain = false
                    askTree()
                }
            }
        }
        if buffer.count >= 14, Array(buffer[0..<6]) != Self.magic { buffer.removeAll() }
    }

    static func message(_ type: UInt32, _ payload: [UInt8]) -> [UInt8] {
        var bytes = magic
        withUnsafeBytes(of: UInt32(payload.count)) { bytes += $0 }
        withUnsafeBytes(of: type) { bytes += $0 }
        return bytes + payload
    }

    /// Takes one whole message off the front of `buffer`.
    static func next(_ buffer: inout [UInt8]) -> (type: UInt32, payload: [UInt8])? {
        guard buffer.count >= 14, Array(buffer[0..<6]) == magic else { return nil }
        let length = buffer[6..<10].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        let type = buffer[10..<14].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        guard Int(length) <= maxMessage else {
            buffer.removeAll()
            return nil
        }
        guard buffer.count >= 14 + Int(length) else { return nil }
        let payload = Array(buffer[14..<14 + Int(length)])
        buffer.removeFirst(14 + Int(length))
        return (type, payload)
    }
}

/// Hyprland's event socket (`socket2`), read line by line into `HyprlandEvents`.
final class HyprlandSocket {
    private let path: String
    private let update: (WindowState) -> Void
    private let lost: (String) -> Void
    private var socket: LocalSocket?
    private var events = HyprlandEvents()

    init(path: String, update: @escaping (WindowState) -> Void, lost: @escaping (String) -> Void) {
        self.path = path
        self.update = update
        self.lost = lost
    }

    func start() -> String? {
        switch LocalSocket.connect(path) {
        case .failure(let error): return error.description
        case .success(let socket):
            self.socket = socket
            socket.read({ [weak self] buffer in
                guard let self else { return }
                while let newline = buffer.firstIndex(of: 10) {
                    let line = String(decoding: buffer[..<newline].prefix(4096), as: UTF8.self)
                    buffer.removeFirst(newline + 1)
                    if self.events.take(line) { self.update(self.events.state) }
                }
            }, ended: { [weak self] why in self?.lost("Hyprland's events — \(why)") })
            return nil
        }
    }
}
