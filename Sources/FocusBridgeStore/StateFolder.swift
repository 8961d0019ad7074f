import FocusBridgeSystem
#if canImport(Glibc)
import Glibc
#endif

/// The state folder, used by one focus-bridge at a time.
///
/// A second bridge on the same folder would wait for SQLite's lock and then fail with "database
/// is locked"; worse, recovery could take a locked database for a broken one. So the folder is
/// claimed first with `flock` on `focus-bridge.lock`, which holds the owner's PID: the second
/// bridge stops at once and names the first. The lock goes with the process (also on SIGKILL).
public final class StateFolder {
    public let path: String
    private let lockDescriptor: Int32

    /// Why the folder cannot be used, in one sentence.
    public struct Refused: Error, CustomStringConvertible {
        public let description: String
        /// Another focus-bridge holds the folder (as opposed to a folder that cannot be written).
        public var isTaken = false
    }

    public static let lockName = "focus-bridge.lock"

    /// Creates the folder (0700) when needed and claims it.
    public init(path: String) throws(Refused) {
        self.path = path
        do {
            try Folders.create(path, mode: 0o700)
        } catch {
            throw Refused(description: "cannot create the state folder \(path): \(error); "
                + "give a writable one with --state-dir or XDG_STATE_HOME")
        }
        if chmod(path, 0o700) != 0 {
            throw Refused(description: "cannot use the state folder \(path): \(String(cString: strerror(errno))); "
                + "it must be a folder of your own that you can write to (or give another with --state-dir)")
        }
        let lockPath = path + "/" + Self.lockName
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw Refused(description: "cannot write in the state folder \(path) (\(lockPath): "
                + "\(String(cString: strerror(errno)))); focus-bridge keeps its state there, so it must be writable")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.readPID(descriptor).map { "PID \($0)" } ?? "PID unknown"
            close(descriptor)
            throw Refused(description: "another focus-bridge (\(holder)) is already running with the state folder \(path); "
                + "stop it first, or give this one another folder with --state-dir", isTaken: true)
        }
        let text = "\(getpid())\n"
        if ftruncate(descriptor, 0) != 0 || pwrite(descriptor, text, text.utf8.count, 0) != text.utf8.count {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw Refused(description: "cannot write in the state folder \(path) (\(lockPath): \(reason)); "
                + "focus-bridge keeps its state there, so it must be writable")
        }
        lockDescriptor = descriptor
    }

    deinit { close(lockDescriptor) }

    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingWhitespace())
    }
}
