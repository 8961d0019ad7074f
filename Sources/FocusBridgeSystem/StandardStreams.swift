#if canImport(Glibc)
import Glibc
#endif

/// Writing text to standard output or standard error whole, unbuffered (as FileHandle's
/// `write` did): a line is out before the next step, also when the process ends at once.
public enum StandardStream {
    case output
    case error

    var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }

    /// Writes `text`; a stream that cannot be written (closed, full disk) loses it.
    public func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var written = 0
            while written < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                written += count
            }
        }
    }
}
