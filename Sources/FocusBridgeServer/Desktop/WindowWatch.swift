import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Knows which window is in front, event-driven (focus-bridge(1), THE WINDOW IN FRONT): sway or
/// i3 through their IPC socket, Hyprland through its event socket, X11 window managers through
/// EWMH properties on the root window. GNOME and Plasma on Wayland tell no other program: the
/// feature is off there, said once in the log. Nothing is polled.
final class WindowWatch {
    private(set) var state = WindowState()
    /// `sway`, `i3`, `hyprland`, `x11` or `off`.
    private(set) var source = "off"
    /// Why it is off, when it is.
    private(set) var problem: String?
    private let logger: Logger
    private var sway: SwayIPC?
    private var hyprland: HyprlandSocket?
    private var x11: X11Windows?
    /// Called on the loop when the focused or fullscreen window changed.
    var changed: (WindowState) -> Void = { _ in }

    init(logger: Logger) {
        self.logger = logger
    }

    var report: WindowReport { WindowReport(source: source, problem: problem, state: state) }

    /// Starts the watcher the environment names: SWAYSOCK, I3SOCK, HYPRLAND_INSTANCE_SIGNATURE,
    /// then DISPLAY (X11); a Wayland session of any other compositor turns the feature off.
    func start(environment: [String: String]) {
        let update: (WindowState) -> Void = { [weak self] state in self?.update(state) }
        let lost: (String) -> Void = { [weak self] why in self?.lost(why) }
        if let path = environment["SWAYSOCK"] ?? environment["I3SOCK"], !path.isEmpty {
            source = environment["SWAYSOCK"] != nil ? "sway" : "i3"
            sway = SwayIPC(path: path, update: update, lost: lost)
            if let error = sway?.start() { return off("cannot talk to \(source) at \(path): \(error)") }
        } else if let signature = environment["HYPRLAND_INSTANCE_SIGNATURE"], !signature.isEmpty {
            source = "hyprland"
            let runtime = environment["XDG_RUNTIME_DIR"] ?? "/run/user/\(getuid())"
            let path = "\(runtime)/hypr/\(signature)/.socket2.sock"
            hyprland = HyprlandSocket(path: path, update: update, lost: lost)
            if let error = hyprland?.start() { return off("cannot read Hyprland's events at \(path): \(error)") }
        } else if let wayland = environment["WAYLAND_DISPLAY"], !wayland.isEmpty {
            let desktop = environment["XDG_CURRENT_DESKTOP"] ?? "this Wayland compositor"
            return off("\(desktop) does not tell other programs which window is focused")
        } else if let display = environment["DISPLAY"], !display.isEmpty {
            source = "x11"
            x11 = X11Windows(display: display, update: update, lost: lost)
            if let error = x11?.start() { return off(error) }
        } else {
            return off("no window system (no SWAYSOCK, I3SOCK, HYPRLAND_INSTANCE_SIGNATURE, WAYLAND_DISPLAY or DISPLAY)")
        }
        logger.info("the window in front: from \(source)")
    }

    private func update(_ new: WindowState) {
        guard new != state else { return }
        state = new
        let shown = "\(new.focused?.name ?? "none")\(new.fullscreen.map { "; fullscreen: \($0.name)" } ?? "")"
        logger.debug("window in front: \(shown.escapingControlCharacters)")
        changed(new)
    }

    private func lost(_ why: String) {
        off(why)
        changed(state)
    }

    private func off(_ why: String) {
        logger.info("the window in front is not known: \(why); when-focused, while-focused and while-fullscreen do nothing")
        source = "off"
        problem = why
        state = WindowState()
        sway = nil
        hyprland = nil
        x11 = nil
    }
}

/// A stream socket to a local compositor, read on the main loop: bytes in, bounded.
final class LocalSocket {
    static let maxBuffered = 16 << 20

    let fd: Int32
    private var buffer: [UInt8] = []
    private var watch: SourceID = .none
    private var closed = false

    /// Connects to the Unix socket at `path`; nil with the reason when it cannot.
    static func connect(_ path: String) -> Result<LocalSocket, Unreachable> {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return .failure(Unreachable("the path is too long")) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(Unreachable(String(cString: strerror(errno)))) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(Unreachable(reason))
        }
        return .success(LocalSocket(fd: fd))
    }

    private init(fd: Int32) { self.fd = fd }

    deinit { shut() }

    /// Calls `received` with everything buffered each time bytes arrive (it consumes what it
    /// used); `ended` once when the other side goes away or sends too much.
    func read(_ received: @escaping (inout [UInt8]) -> Void, ended: @escaping (String) -> Void) {
        watch = MainLoop.whenReadable(fd) { [weak self] in
            guard let self, !self.closed else { return false }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(self.fd, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { return true }
            guard count > 0 else {
                self.watch = .none
                self.shut()
                ended("the connection closed")
                return false
            }
            self.buffer += chunk[0..<count]
            guard self.buffer.count <= Self.maxBuffered else {
                self.watch = .none
                self.shut()
                ended("it sent more than \(Self.maxBuffered >> 20) MiB at once")
                return false
            }
            received(&self.buffer)
            return true
        }
    }

    /// Writes all of `bytes` (small requests; a local socket takes them at once).
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    private func shut() {
        guard !closed else { return }
        closed = true
        MainLoop.cancel(watch)
        close(fd)
    }

    /// Why the socket cannot be reached, in a few words.
    struct Unreachable: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
