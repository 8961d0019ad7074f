#if canImport(Glibc)
import Glibc
#endif

/// Reading a file whole. The size is not asked first: files of /proc say 0 and have more, and a
/// file may grow while it is read, so reading goes on to the end or to the bound given.
public enum FileReading {
    /// At most `limit` bytes from the start of `path` (all of it when it is shorter).
    public static func contents(of path: String, limit: Int = .max) throws(SystemError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { throw .current }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count < limit {
            let wanted = min(chunk.count, limit - bytes.count)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, wanted) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw .current }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }

    /// The file as UTF-8 text; nil when it cannot be read or is not UTF-8 (as
    /// `String(contentsOfFile:encoding: .utf8)` was).
    public static func text(of path: String, limit: Int = .max) -> String? {
        guard let bytes = try? contents(of: path, limit: limit) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
