import CGLib
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `g_spawn_async_with_pipes` and watched from the main loop
/// (`g_child_watch_add`, which also reaps it).
public final class Subprocess {
    private var pid: Int32
    private var outputFD: Int32 = -1
    private var watch: UInt32 = 0
    /// How it ended, once it has; `onExit` handlers waiting for that.
    private var ending: String?
    private var exitHandlers: [(String) -> Void] = []

    /// Starts `arguments` (looked up in PATH) with `environment` overrides added to ours, its
    /// standard input from /dev/null. With `captureStandardOutput`, the child's standard output
    /// is a pipe read by `readLine()`.
    public init(_ arguments: [String], environment: [String: String] = [:],
                captureStandardOutput: Bool = false) throws(SpawnError) {
        var environ = g_get_environ()
        for (key, value) in environment { environ = g_environ_setenv(environ, key, value, 1) }
        defer { g_strfreev(environ) }
        var cArguments = arguments.map { strdup($0) }
        cArguments.append(nil)
        defer { cArguments.forEach { free($0) } }
        if let mask = Self.childUmask { Self.childMask = mask }
        let setup: GSpawnChildSetupFunc? = Self.childUmask == nil ? nil : { _ in umask(Subprocess.childMask) }
        let flags = GSpawnFlags(rawValue: G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_DO_NOT_REAP_CHILD.rawValue)
        var pid: GPid = 0
        var output: Int32 = -1
        var error: UnsafeMutablePointer<GError>?
        let started = withUnsafeMutablePointer(to: &output) { outputPointer in
            g_spawn_async_with_pipes(nil, &cArguments, environ, flags, setup, nil, &pid, nil,
                                     captureStandardOutput ? outputPointer : nil, nil, &error)
        }
        guard started != 0 else { throw SpawnError(taking: error) }
        self.pid = pid
        outputFD = output
        let box = CallbackBox<(Int32) -> Void>({ [weak self] status in self?.exited(status) })
        watch = g_child_watch_add_full(G_PRIORITY_DEFAULT, pid, { _, status, data in
            CallbackBox<(Int32) -> Void>.borrow(data)(status)
        }, box.retainedPointer(), { data in CallbackBox<(Int32) -> Void>.release(data) })
    }

    deinit {
        // The watch stays until the child ends (it reaps it); only its handler goes.
        if outputFD >= 0 { close(outputFD) }
    }

    /// The umask children get, when the process runs with a stricter one of its own (set once
    /// at start, before any child). nil: they inherit the process's.
    nonisolated(unsafe) public static var childUmask: mode_t?
    /// The same, read in the child between fork and exec (no optional unwrapping there).
    nonisolated(unsafe) private static var childMask: mode_t = 0o022

    /// The process ID, or nil once it has exited.
    public var processID: Int32? { ending == nil ? pid : nil }

    /// Reads one line of the captured standard output, blocking (start-up use only).
    public func readLine() -> String? {
        guard outputFD >= 0 else { return nil }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(outputFD, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { break }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    public func send(signal: Int32) {
        if ending == nil { kill(pid, signal) }
    }

    private func exited(_ status: Int32) {
        let text: String
        if status & 0x7f == 0 {
            text = "exited with status \((status >> 8) & 0xff)"
        } else if status & 0x7f != 0x7f {
            text = "was killed by signal \(status & 0x7f)"
        } else {
            text = "ended"
        }
        ending = text
        let handlers = exitHandlers
        exitHandlers = []
        for handler in handlers { handler(text) }
    }

    /// Calls `handler` on the main loop when the process exits, with how, as a predicate that
    /// follows "it": `exited with status 1`, `was killed by signal 6`.
    public func onExit(_ handler: @escaping (String) -> Void) {
        if let ending {
            MainLoop.whenIdle { handler(ending) }
        } else {
            exitHandlers.append(handler)
        }
    }

    /// Waits for the process to exit, at most `milliseconds` (shutdown use only): true if it did.
    public func waitForExit(milliseconds: UInt32) -> Bool {
        if ending != nil { return true }
        var timedOut = false
        let timer = MainLoop.after(milliseconds: milliseconds) { timedOut = true }
        while ending == nil && !timedOut { MainLoop.iterate(blocking: true) }
        if !timedOut { MainLoop.cancel(timer) }
        return ending != nil
    }
}

/// Why a child process could not be started: GLib's words for it (the program is not found, not
/// executable, …).
public struct SpawnError: Error, CustomStringConvertible, Sendable {
    public let message: String

    /// Takes over (and frees) the GError of `g_spawn_async_with_pipes`.
    init(taking error: UnsafeMutablePointer<GError>?) {
        guard let error else {
            message = "unknown error"
            return
        }
        defer { g_error_free(error) }
        message = String(cString: error.pointee.message)
    }

    public var description: String { message }
}
