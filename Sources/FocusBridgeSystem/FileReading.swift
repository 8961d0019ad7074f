#if canImport(Glibc)
import Glibc
#endif

/// Reading a file whole. The size is not asked first: files of /proc say 0 and have more, and a
/// file may grow while it is read, so reading goes on to the end or to the bound given.
///
/// Every read here is of a regular file only, opened non-blocking: a FIFO, a device or a socket
/// put where a file is expected (by another program, a sandboxed app or a sync engine) is refused
/// at once instead of blocking the caller until someone writes to it.
public enum FileReading {
    /// At most `limit` bytes from the start of `path` (all of it when it is shorter).
    public static func contents(of path: String, limit: Int = .max) throws(SystemError) -> [UInt8] {
        do {
            return try read(path, limit: limit, followLinks: true, refuseLonger: false)
        } catch {
            switch error {
            case .system(let error): throw error
            // Not a regular file: as reading a folder says.
            case .notRegularFile: throw SystemError(code: EINVAL)
            case .tooLarge: throw SystemError(code: EFBIG) // not reached: longer files are cut
            }
        }
    }

    /// The file as UTF-8 text; nil when it cannot be read or is not UTF-8 (as
    /// `String(contentsOfFile:encoding: .utf8)` was).
    public static func text(of path: String, limit: Int = .max) -> String? {
        guard let bytes = try? contents(of: path, limit: limit) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The whole of the regular file at `path`, refused when it is longer than `limit` bytes.
    ///
    /// What holds, whoever put the file there:
    /// - a FIFO, a device, a socket or a folder is refused at once (`notRegularFile`), never read
    ///   and never waited on: it is looked at before it is opened, opened with `O_NONBLOCK`, and
    ///   looked at again once open (it may have been replaced in between);
    /// - at most `limit` + 1 bytes are read and held, whatever size the file says or has (a
    ///   sparse file of gigabytes costs one look at its size);
    /// - with `followLinks` false, a symbolic link at `path` itself is refused (`ELOOP`), so a
    ///   name inside another process's root cannot point the reader at a file of its own choice.
    public static func readRegularFile(_ path: String, limit: Int, followLinks: Bool = true) throws(FileReadingError) -> [UInt8] {
        try read(path, limit: limit, followLinks: followLinks, refuseLonger: true)
    }

    private static func read(_ path: String, limit: Int, followLinks: Bool, refuseLonger: Bool) throws(FileReadingError) -> [UInt8] {
        // A look before opening: a device is not even opened (opening one can have effects).
        var info = stat()
        guard (followLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { throw .system(.current) }
        if !followLinks && info.st_mode & S_IFMT == S_IFLNK { throw .system(SystemError(code: ELOOP)) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile }
        let flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (followLinks ? 0 : O_NOFOLLOW)
        let descriptor = open(path, flags)
        guard descriptor >= 0 else { throw .system(.current) }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0 else { throw .system(.current) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notRegularFile }
        if refuseLonger && Int(info.st_size) > limit { throw .tooLarge(limit: limit) }
        // One byte more than allowed tells a file that grew past the limit after the look.
        let bound = refuseLonger ? limit + 1 : limit
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count < bound {
            let wanted = min(chunk.count, bound - bytes.count)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, wanted) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .system(.current) }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        if refuseLonger && bytes.count > limit { throw .tooLarge(limit: limit) }
        return bytes
    }
}

/// Why `FileReading.readRegularFile` did not read a file.
public enum FileReadingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// It cannot be opened or read (missing, no permission, a symbolic link refused: `ELOOP`).
    case system(SystemError)
    /// It is a FIFO, a device, a socket or a folder.
    case notRegularFile
    /// It is longer than the limit.
    case tooLarge(limit: Int)

    /// There is no such file (or a folder on its way is missing).
    public var isMissing: Bool {
        if case .system(let error) = self { return error.isMissing }
        return false
    }

    public var description: String {
        switch self {
        case .system(let error): return error.description
        case .notRegularFile: return "not a regular file"
        case .tooLarge(let limit): return "larger than \(limit) bytes"
        }
    }
}
