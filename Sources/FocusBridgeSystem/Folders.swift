#if canImport(Glibc)
import Glibc
#endif

/// Creating folders (`mkdir -p`) and listing one.
public enum Folders {
    /// Creates `path` and every missing folder on its way, each with exactly `mode` (set after
    /// `mkdir`, so the umask does not narrow it, as FileManager's `posixPermissions` does).
    /// Folders already there are left as they are; a file in the way is an error: EEXIST for
    /// the folder asked for, ENOTDIR for one on its way (as `mkdir -p` says).
    public static func create(_ path: String, mode: mode_t) throws(SystemError) {
        if FileStatus.isDirectory(path) { return }
        let parent = FilePath.parent(path)
        if !parent.isEmpty && parent != "/" && parent != path && !FileStatus.exists(parent) {
            try create(parent, mode: mode)
        }
        if mkdir(path, mode) != 0 {
            let error = SystemError.current
            // Made meanwhile by another process: as good as made here.
            if error.code == EEXIST && FileStatus.isDirectory(path) { return }
            throw error
        }
        try FileStatus.setMode(path, mode)
    }

    /// The names in a folder (not `.` and `..`), in the order the file system gives them; at
    /// most `limit`.
    public static func entries(of path: String, limit: Int = .max) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw .current }
        defer { closedir(directory) }
        var names: [String] = []
        while names.count < limit, let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
