import CGLib
#if canImport(Glibc)
import Glibc
#endif

/// A child process started through GIO, watched from the main loop.
public final class Subprocess {
    private let pointer: OpaquePointer // GSubprocess*

    /// Starts `arguments` (looked up in PATH) with `environment` overrides added to ours.
    /// With `captureStandardOutput`, the child's standard output is a pipe read by `readLine()`.
    public init(_ arguments: [String], environment: [String: String] = [:],
                captureStandardOutput: Bool = false) throws(DBusError) {
        let flags = captureStandardOutput ? G_SUBPROCESS_FLAGS_STDOUT_PIPE : G_SUBPROCESS_FLAGS_NONE
        let launcher = g_subprocess_launcher_new(flags)!
        defer { g_object_unref(UnsafeMutableRawPointer(launcher)) }
        for (key, value) in environment { g_subprocess_launcher_setenv(launcher, key, value, 1) }
        if let mask = Self.childUmask {
            Self.childMask = mask
            g_subprocess_launcher_set_child_setup(launcher, { _ in umask(Subprocess.childMask) }, nil, nil)
        }
        var cStrings = arguments.map { strdup($0) }
        cStrings.append(nil)
        defer { cStrings.forEach { free($0) } }
        var error: UnsafeMutablePointer<GError>?
        let process = cStrings.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                g_subprocess_launcher_spawnv(launcher, $0, &error)
            }
        }
        guard let process else { throw DBusError(taking: error) }
        pointer = process
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// The umask children get, when the process runs with a stricter one of its own (set once
    /// at start, before any child). nil: they inherit the process's.
    nonisolated(unsafe) public static var childUmask: mode_t?
    /// The same, read in the child between fork and exec (no optional unwrapping there).
    nonisolated(unsafe) private static var childMask: mode_t = 0o022

    /// The process ID, or nil once it has exited.
    public var processID: Int32? {
        g_subprocess_get_identifier(pointer).flatMap { Int32(String(cString: $0)) }
    }

    /// Reads one line of the captured standard output, blocking (start-up use only).
    public func readLine() -> String? {
        guard let stream = g_subprocess_get_stdout_pipe(pointer) else { return nil }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while g_input_stream_read(stream, &byte, 1, nil, nil) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    public func send(signal: Int32) { g_subprocess_send_signal(pointer, signal) }

    /// Calls `handler` on the main loop when the process exits, with a description of how.
    public func onExit(_ handler: @escaping (String) -> Void) {
        typealias Handler = (String) -> Void
        g_subprocess_wait_async(pointer, nil, { source, result, data in
            let handler = CallbackBox<Handler>.take(data)
            let process = OpaquePointer(source)
            _ = g_subprocess_wait_finish(process, result, nil)
            if g_subprocess_get_if_exited(process) != 0 {
                handler("exited with status \(g_subprocess_get_exit_status(process))")
            } else if g_subprocess_get_if_signaled(process) != 0 {
                handler("killed by signal \(g_subprocess_get_term_sig(process))")
            } else {
                handler("ended")
            }
        }, CallbackBox<Handler>(handler).retainedPointer())
    }

    /// Waits for the process to exit, at most `milliseconds` (shutdown use only): true if it did.
    public func waitForExit(milliseconds: UInt32) -> Bool {
        var done = false
        onExit { _ in done = true }
        var timedOut = false
        let timer = MainLoop.after(milliseconds: milliseconds) { timedOut = true }
        while !done && !timedOut { MainLoop.iterate(blocking: true) }
        if !timedOut { MainLoop.cancel(timer) }
        return done
    }
}
