/// A process's command line, as `/proc/PID/cmdline` tells it: what `--replace` runs again behind
/// the bridge, and what the one-sentence conflicts suggest to run there.
public enum ProcessCommandLine {
    /// The arguments of a `/proc/PID/cmdline` text (NUL-separated, usually NUL-terminated); nil
    /// when there are none (a kernel thread, or a process that is gone).
    public static func parse(_ bytes: [UInt8]) -> [String]? {
        var arguments = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if arguments.last == "" { arguments.removeLast() }
        guard let first = arguments.first, !first.isEmpty else { return nil }
        return arguments
    }

    /// The command with its executable made absolute from `/proc/PID/exe` when the process was
    /// started by a bare name that PATH may not find again (`notification-daemon` lives in
    /// /usr/lib). A deleted executable (" (deleted)", after an upgrade) is not used.
    public static func runnable(_ arguments: [String], executablePath: String?) -> [String] {
        guard let first = arguments.first, !first.contains("/"), let executablePath,
              executablePath.hasPrefix("/"), !executablePath.hasSuffix(" (deleted)") else { return arguments }
        return [executablePath] + arguments.dropFirst()
    }

    /// The command as one shell line: arguments quoted where the shell would split or expand them.
    public static func shellLine(_ arguments: [String]) -> String {
        arguments.map(quoted).joined(separator: " ")
    }

    private static func quoted(_ argument: String) -> String {
        let plain = argument.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_./:=,+@%".unicodeScalars.contains($0)
        }
        if plain && !argument.isEmpty { return argument }
        return "'" + argument.replacing("'", with: "'\\''") + "'"
    }
}
