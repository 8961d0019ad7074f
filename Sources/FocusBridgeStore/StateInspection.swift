import CSQLite
import FocusBridgeSystem
#if canImport(Glibc)
import Glibc
#endif

/// A state folder as `focusctl doctor` reads it while no focus-bridge of this session runs with
/// it: who holds its lock, and its database opened read-only and checked as a start checks it
/// (`quick_check`). Nothing is written, created or moved.
public enum StateInspection: Equatable, Sendable {
    /// No database there yet.
    case absent
    case healthy(path: String)
    /// A focus-bridge holds the folder (its lock), with its PID when the lock file tells it.
    case inUse(processID: Int32?)
    /// SQLite finds the file damaged, or not a database.
    case broken(path: String, reason: String)
    /// It cannot be read at all.
    case unusable(path: String, reason: String)

    public static func inspect(folder: String) -> StateInspection {
        guard FileStatus.exists(folder) else { return .absent }
        guard FileStatus.isDirectory(folder) else { return .unusable(path: folder, reason: "it is not a folder") }
        let lock = lockHolder(folder)
        if lock.held { return .inUse(processID: lock.processID) }
        let path = FilePath.appending(folder, "state.sqlite3")
        guard FileStatus.exists(path) || FileStatus.isSymbolicLink(path) else { return .absent }
        if FileStatus.isSymbolicLink(path) {
            return .unusable(path: path, reason: "it is a symbolic link; focus-bridge opens only a file of its own there")
        }
        do {
            let database = try SQLiteDatabase(path: path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE)
            defer { database.close() }
            let check = try database.strings("PRAGMA quick_check")
            guard check == ["ok"] else {
                return .broken(path: path, reason: "quick_check: " + check.prefix(3).joined(separator: "; "))
            }
            return .healthy(path: path)
        } catch let error as SQLiteError where error.isCorrupt {
            return .broken(path: path, reason: error.reason)
        } catch let error as SQLiteError where error.isBusyOrLocked {
            return .inUse(processID: nil)
        } catch let error as SQLiteError {
            return .unusable(path: path, reason: error.reason)
        } catch {
            return .unusable(path: path, reason: "\(error)")
        }
    }

    /// Whether a process holds the folder's lock (`StateFolder`), and the PID the lock file holds.
    private static func lockHolder(_ folder: String) -> (held: Bool, processID: Int32?) {
        let descriptor = open(FilePath.appending(folder, StateFolder.lockName), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return (false, nil) }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            flock(descriptor, LOCK_UN)
            return (false, nil)
        }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return (true, nil) }
        return (true, Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingWhitespace()))
    }
}
