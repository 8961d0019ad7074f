#if canImport(Glibc)
import Glibc
#endif

/// What a path is, from `stat`/`lstat`, and the small changes made to one (mode, removal).
/// Each answers false or nil when the path cannot be looked at, as FileManager's do.
public enum FileStatus {
    /// Something is there (a symbolic link is followed: a dangling one is not there).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// A folder is there (or a symbolic link to one).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// A file that is not a folder, and that this process may run.
    public static func isExecutableFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFDIR && access(path, X_OK) == 0
    }

    /// The path itself is a symbolic link (not followed).
    public static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// The size in bytes, nil when the path cannot be looked at.
    public static func size(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// Where a symbolic link points, as written in it (not resolved further).
    public static func symbolicLinkDestination(_ path: String) throws(SystemError) -> String {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer { raw in
                raw.withMemoryRebound(to: CChar.self) { readlink(path, $0.baseAddress!, $0.count) }
            }
            guard count >= 0 else { throw .current }
            // The destination fills the buffer: it may have been cut, read again with more room.
            if count < buffer.count { return String(decoding: buffer[..<count], as: UTF8.self) }
            buffer = [UInt8](repeating: 0, count: buffer.count * 2)
        }
    }

    /// The absolute path with every symbolic link, `.` and `..` resolved (`realpath`); nil when
    /// a part of it is missing.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Sets the permission bits exactly (the umask does not apply).
    public static func setMode(_ path: String, _ mode: mode_t) throws(SystemError) {
        guard chmod(path, mode) == 0 else { throw .current }
    }

    /// Removes a file (not a folder).
    public static func remove(_ path: String) throws(SystemError) {
        guard unlink(path) == 0 else { throw .current }
    }
}
