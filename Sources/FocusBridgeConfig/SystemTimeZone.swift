#if canImport(Glibc)
import Glibc
#endif
import FocusBridgeCore
import FocusBridgeSystem
import FocusBridgeTime

/// The process's time zone, loaded for Core's `TimeZoneRules` (which only reads bytes): `TZ`
/// when it names a zone (`Europe/Berlin`, `:Europe/Berlin`, a file's path) or is a POSIX rule
/// (`CET-1CEST,M3.5.0,M10.5.0/3`), else `/etc/localtime`, else UTC.
///
/// A `TZ` that is none of these is passed over for `/etc/localtime`, silently, as Foundation's
/// `TimeZone.current` passes it over; so is an empty one. Unlike Foundation, a POSIX rule
/// is read as glibc reads it (`GMT+3` is three hours west of Greenwich, as for `date`).
public enum SystemTimeZone {
    public static let zoneDirectory = "/usr/share/zoneinfo"
    public static let localTimeFile = "/etc/localtime"

    /// The zone for `TZ` (its value, nil when unset).
    public static func current(tz: String? = getenv("TZ").map { String(cString: $0) }) -> TimeZoneRules {
        if let tz, let zone = zone(tz) { return zone }
        return localTime() ?? .utc
    }

    /// The zone `TZ=text` says, or nil when it says none.
    static func zone(_ text: String) -> TimeZoneRules? {
        let name = text.hasPrefix(":") ? String(text.dropFirst()) : text
        guard !name.isEmpty else { return nil }
        if let zone = named(name) { return zone }
        if !text.hasPrefix(":"), let rule = try? PosixTimeZone(name) { return TimeZoneRules(identifier: name, rule: rule) }
        return nil
    }

    /// The zone of `/usr/share/zoneinfo/NAME`, or of the file at an absolute path; nil when there
    /// is no such TZif file. A name that climbs out of the folder (`..`) is no zone.
    public static func named(_ name: String) -> TimeZoneRules? {
        if name.hasPrefix("/") { return file(name, identifier: name) }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard name.utf8.count <= 255, !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return nil }
        if let zone = file(zoneDirectory + "/" + name, identifier: name) { return zone }
        // UTC even on a system without tzdata.
        return ["UTC", "Etc/UTC"].contains(name) ? TimeZoneRules(identifier: name, fixedOffset: 0) : nil
    }

    /// `/etc/localtime`, named after where its link points under `zoneinfo/` when it does.
    static func localTime() -> TimeZoneRules? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink(localTimeFile, &buffer, buffer.count - 1)
        var identifier = "localtime"
        if length > 0 {
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let range = target.firstRange(of: "zoneinfo/") { identifier = String(target[range.upperBound...]) }
        }
        return file(localTimeFile, identifier: identifier)
    }

    private static func file(_ path: String, identifier: String) -> TimeZoneRules? {
        guard let bytes = read(path, limit: TimeZoneRules.maxTZifBytes) else { return nil }
        return try? TimeZoneRules(tzif: bytes, identifier: identifier)
    }

    /// The bytes of the regular file at `path`, nil when unreadable or larger than `limit` (a
    /// FIFO or a device named as the zone is refused at once, never waited on).
    private static func read(_ path: String, limit: Int) -> [UInt8]? {
        try? FileReading.readRegularFile(path, limit: limit)
    }
}
