#if canImport(Glibc)
import Glibc
#endif

/// Replacing a file's contents so that a reader (or a sync engine) sees the old file or the new
/// one, never half of either: the bytes go to a temporary file in the same folder, are flushed
/// to the disk (`fsync`), and only then renamed over the file. On any failure the temporary file
/// is removed and the old file is left as it was.
public enum AtomicFile {
    /// The temporary name used for `path`: hidden, in its folder, always the same, so that a
    /// write cut short by a crash leaves nothing behind after the next one.
    public static func temporaryPath(for path: String) -> String {
        let folder = FilePath.parent(path)
        let name = "." + FilePath.lastComponent(path) + ".tmp"
        return folder.isEmpty ? name : FilePath.appending(folder, name)
    }

    /// Writes `bytes` as the new contents of `path`, created with `mode` (less the umask).
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws(SystemError) {
        let temporary = temporaryPath(for: path)
        do {
            try writeNew(bytes, to: temporary, mode: mode)
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = SystemError.current
            unlink(temporary)
            throw error
        }
    }

    /// Writes `bytes` to `path`, a new file it creates (`O_EXCL`), and flushes them to the disk.
    ///
    /// Whatever is already at the temporary name (a file left by a crash, a symbolic link, a
    /// FIFO another program put there) is removed and the file created once more; it is never
    /// opened, so a link cannot send the bytes elsewhere and a FIFO cannot block the writer.
    /// What cannot be removed (a folder), or is put back at once, is an error.
    static func writeNew(_ bytes: [UInt8], to path: String, mode: mode_t) throws(SystemError) {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW
        var descriptor = open(path, flags, mode)
        if descriptor < 0 && errno == EEXIST {
            guard unlink(path) == 0 || errno == ENOENT else { throw .current }
            descriptor = open(path, flags, mode)
        }
        guard descriptor >= 0 else { throw .current }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw count == 0 ? SystemError(code: EIO) : .current }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw .current }
    }
}
