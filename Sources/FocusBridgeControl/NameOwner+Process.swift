import FocusBridgeCore
import FocusBridgeSystem

/// Who owns a bus name, read the same way by focus-bridge (a name it cannot have) and focusctl
/// (`doctor`): the bus gives the connection and its PID, /proc the program.
extension NameOwner.Process {
    /// Reads `/proc/PID/exe` and `/proc/PID/cmdline`.
    public static func read(_ pid: UInt32) -> NameOwner.Process {
        let exe = try? FileStatus.symbolicLinkDestination("/proc/\(pid)/exe")
        // A command line is at most a few hundred KiB (the kernel's argument limit).
        let bytes = try? FileReading.readRegularFile("/proc/\(pid)/cmdline", limit: 4 << 20)
        return NameOwner.Process(executable: ProcessIdentity(processID: pid, flatpakInfo: nil, cgroup: nil,
                                                             executablePath: exe).executable,
                                 command: bytes.flatMap(ProcessCommandLine.parse)
                                     .map { ProcessCommandLine.runnable($0, executablePath: exe) })
    }
}

extension NameOwner {
    /// Asks the bus who owns `name` and which process that is, then /proc for its executable and
    /// command line.
    public static func lookup(_ name: String, nameOwner: (String) -> String?,
                              processID: (String) -> UInt32?) -> NameOwner? {
        lookup(name, nameOwner: nameOwner, processID: processID, process: Process.read)
    }
}
