import FocusBridgeControl
import FocusBridgeSystem
#if canImport(Glibc)
import Glibc
#endif

/// Reads where the bridge's standard error goes (`StatusReport.Log.Facts`), once, at start.
enum LogPlace {
    static func read() -> StatusReport.Log {
        let target = try? FileStatus.symbolicLinkDestination("/proc/self/fd/2")
        let cgroup = (try? FileReading.readRegularFile("/proc/self/cgroup", limit: 64 << 10))
            .flatMap { String(validating: $0, as: UTF8.self) }
        let unit = cgroup.flatMap(StatusReport.Log.unit(fromCgroup:))
        return StatusReport.Log(.init(target: target, journal: isJournal(), unit: unit?.name, userUnit: unit?.user ?? true,
                                      processID: Environment.processID))
    }

    /// Standard error is the journal's stream: `JOURNAL_STREAM` is `DEVICE:INODE` of it
    /// (systemd.exec(5)), and a descriptor handed on to another program is not.
    private static func isJournal() -> Bool {
        guard let value = Environment.variable("JOURNAL_STREAM") else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(2, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
