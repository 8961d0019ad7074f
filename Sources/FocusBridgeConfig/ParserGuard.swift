import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Keeps a TOML parser crash out of the process that reads the file.
///
/// toml++ 3.4 (inside TOMLKit 0.6, the only version at hand) stops the whole process with a
/// failed assertion on some malformed files instead of reporting an error: a table header without
/// a name, `t = 1979-05-27T:00`, `a = [1, }` (fuzz findings 1, 9 and 10; it has some ninety such
/// assertions). `HeaderCheck` refuses the first kind with its position; for everything else a
/// program that reads a file someone is editing — the bridge at start and on every reload,
/// `focusctl check-config` and `explain` — first lets a child process parse the same text. When the
/// child dies, the file is refused, and the line and column where the parser stops are found by
/// letting children parse ever shorter beginnings of the text.
///
/// Off unless an executable calls `enable()` first thing in `main` (the unit tests parse in
/// process, and their runner could not serve as the child).
public enum ParserGuard {
    /// Set in the child's environment: read the text from standard input, parse it, exit 0.
    static let probeVariable = "FOCUS_BRIDGE_TOML_PROBE"

    /// The program that parses in a child; nil while the guard is off. Set once, before any
    /// thread starts.
    nonisolated(unsafe) private static var executable: String?

    /// Turns the guard on for this executable; in a child started by the guard, parses standard
    /// input and exits instead of returning.
    public static func enable() {
        if ProcessInfo.processInfo.environment[probeVariable] == "1" {
            let text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            _ = try? Configuration.parse(text, path: "-")
            exit(0)
        }
        executable = "/proc/self/exe"
    }

    /// Throws the `ConfigError` for `text` when the parser would crash on it.
    static func check(_ text: String, path: String) throws(ConfigError) {
        guard let executable, crashes(text, executable: executable) == true else { return }
        let (line, column) = locate(text, executable: executable)
        throw ConfigError(path: path, line: line, column: column,
                          message: "the TOML parser (toml++ 3.4) fails on this instead of reporting an error; check the syntax here")
    }

    /// The first line, and in it the first column, at which a beginning of the text makes the
    /// parser crash: where it was reading when it stopped.
    static func locate(_ text: String, executable: String) -> (line: Int, column: Int) {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        func prefix(lines count: Int) -> Substring {
            count < lines.count ? text[..<lines[count].startIndex] : text[...]
        }
        let line = firstCrash(in: 1...max(lines.count, 1)) { count in
            crashes(String(prefix(lines: count)), executable: executable)
        }
        guard line <= lines.count else { return (1, 1) }
        let before = prefix(lines: line - 1)
        let content = lines[line - 1]
        let column = firstCrash(in: 1...max(content.count + 1, 1)) { length in
            crashes(String(before) + String(content.prefix(length)) + (length > content.count ? "\n" : ""),
                    executable: executable)
        }
        return (line, min(column, content.count + 1))
    }

    /// The smallest value in `range` for which `crash` holds, assuming it holds from there on
    /// (the last value when it holds nowhere).
    private static func firstCrash(in range: ClosedRange<Int>, _ crash: (Int) -> Bool?) -> Int {
        var low = range.lowerBound, high = range.upperBound
        while low < high {
            let middle = (low + high) / 2
            if crash(middle) == true { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Whether a child parsing `text` dies of a signal; nil when no child could be started (the
    /// file is then parsed in process, as without the guard).
    static func crashes(_ text: String, executable: String) -> Bool? {
        // The text goes in through an unlinked temporary file, not a pipe: no SIGPIPE, no deadlock.
        guard let file = tmpfile() else { return nil }
        defer { fclose(file) }
        let input = fileno(file)
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(input, $0.baseAddress! + written, bytes.count - written) }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { return nil }
            written += result
        }
        guard lseek(input, 0, SEEK_SET) == 0 else { return nil }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let environment = ProcessInfo.processInfo.environment.filter { $0.key != probeVariable }
            .map { "\($0.key)=\($0.value)" } + ["\(probeVariable)=1", "SWIFT_BACKTRACE=enable=no"]
        let arguments = [executable]
        var pid = pid_t()
        let spawned = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in posix_spawn(&pid, executable, &actions, nil, argv, envp) }
        }
        guard spawned == 0 else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return nil }
        }
        // Killed by a signal (the assertion's SIGABRT, or worse): the low seven bits.
        return status & 0x7f != 0
    }

    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}
