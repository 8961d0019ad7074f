import CGLib
import Foundation

/// What every fuzz target shares: failing loudly, and GLib's warnings made fatal.
public enum Fuzz {
    /// Once per process: a GLib critical or warning is FocusBridge misusing the GLib API (a
    /// `g_return_if_fail` that failed, say), so the fuzzer must see it as a crash, not a log line.
    /// It aborts (SIGABRT, which libFuzzer catches and saves the input for); GLib's own fatal
    /// mask would raise SIGTRAP, which libFuzzer does not handle.
    public static let setUp: Void = {
        g_log_set_default_handler({ domain, level, message, _ in
            let text = "\(domain.map { String(cString: $0) } ?? "")-\(level.rawValue): \(message.map { String(cString: $0) } ?? "")"
            if level.rawValue & (G_LOG_LEVEL_ERROR.rawValue | G_LOG_LEVEL_CRITICAL.rawValue | G_LOG_LEVEL_WARNING.rawValue) != 0 {
                FileHandle.standardError.write(Data("FUZZ: GLib \(text)\n".utf8))
                abort()
            }
        }, nil)
    }()

    /// An invariant of the product that the input broke: printed, then a crash libFuzzer records.
    public static func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                               file: StaticString = #fileID, line: UInt = #line) {
        guard !condition() else { return }
        let text = "FUZZ INVARIANT BROKEN (\(file):\(line)): \(message())\n"
        FileHandle.standardError.write(Data(text.utf8))
        abort()
    }

    /// The input bytes as a Swift array.
    public static func bytes(_ data: UnsafePointer<UInt8>, _ size: Int) -> [UInt8] {
        Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// The input as text, when it is UTF-8 (what the product does with files and strings it reads).
    public static func text(_ data: UnsafePointer<UInt8>, _ size: Int) -> String? {
        String(validating: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    }
}
