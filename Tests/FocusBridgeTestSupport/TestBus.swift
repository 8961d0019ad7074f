#if canImport(XCTest)
import Glibc
import XCTest

/// A dbus-daemon of the tests' own, with the project's private-bus configuration (nothing is
/// ever activated on it); it ends with this object.
public final class TestBus {
    public let address: String
    private let pid: pid_t

    public init() throws {
        let config = String(#filePath.dropLast("Tests/FocusBridgeTestSupport/TestBus.swift".count))
            + "dbus/focus-bridge-private-bus.conf"
        guard let pipe = popen("dbus-daemon --config-file='\(config)' --fork --print-address=1 --print-pid=1", "r") else {
            throw XCTSkip("cannot run dbus-daemon")
        }
        var lines: [String] = []
        var buffer = [CChar](repeating: 0, count: 4096)
        while lines.count < 2, fgets(&buffer, Int32(buffer.count), pipe) != nil {
            var line = String(cString: buffer)
            while line.last == "\n" { line.removeLast() }
            lines.append(line)
        }
        pclose(pipe)
        guard lines.count == 2, let pid = pid_t(lines[1]) else { throw XCTSkip("dbus-daemon did not start: \(lines)") }
        address = lines[0]
        self.pid = pid
    }

    deinit { kill(pid, SIGTERM) }
}
#endif
