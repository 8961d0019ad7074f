#if canImport(Glibc)
import Glibc
#endif

/// A failed system call, kept as its `errno`: the words shown are the C library's
/// (`strerror`), the same a Foundation file error shows once its domain and code are taken off.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public let code: Int32

    public init(code: Int32) { self.code = code }

    /// The `errno` of the call that just failed.
    public static var current: SystemError { SystemError(code: errno) }

    public var description: String { String(cString: strerror(code)) }

    /// The file (or a folder on its way) is not there.
    public var isMissing: Bool { code == ENOENT || code == ENOTDIR }
}
