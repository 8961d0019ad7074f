import FocusBridgeJSON
import FocusBridgeTime

// Share Focus across devices (`[share]`): each device writes its own manual Focus change to
// `DEVICE.json` in a folder a sync engine (Syncthing, Nextcloud, …) keeps the same on every
// device, and takes the newest change of the others. This file holds the rules, without I/O:
// which files count, how a file is read (leniently), and what to apply. The folder itself is
// read and written by the server (`ShareFolder`).

/// The `[share]` table.
public struct ShareSettings: Equatable, Sendable {
    /// The folder the devices share, as written (`~/` allowed); nil: sharing is off.
    public var folder: String?
    /// This device's name in the folder; nil: the host name (`SharedFocus.deviceName(host:)`).
    public var device: String?

    public init(folder: String? = nil, device: String? = nil) {
        self.folder = folder
        self.device = device
    }
}

/// One manual change of the Focus, as a device shares it.
public struct SharedChange: Equatable, Codable, Sendable {
    /// The Focus turned on, or nil: turned off.
    public var focus: String?
    /// When it was made, by the writer's clock.
    public var since: Instant
    /// The end the person gave (`--for`, `--until`), or nil: until changed, or until the next
    /// boundary of each device's own schedules.
    public var until: Instant?
    /// The order of changes: the writer's clock, but always after every change the writer had
    /// seen (so a device whose clock is behind still makes a change that counts as newer).
    public var changed: Instant

    public init(focus: String?, since: Instant, until: Instant?, changed: Instant) {
        self.focus = focus
        self.since = since
        self.until = until
        self.changed = changed
    }
}

/// What one device's file says.
public struct SharedFocusRecord: Equatable, Sendable {
    public var device: String
    /// Counts the changes this device made; a file with a number not above the last one taken
    /// from that device is a replay (an old version put back by the sync engine) and ignored.
    public var sequence: UInt64
    /// Nil when the device has made no change yet (sequence 0).
    public var change: SharedChange?
    /// The FocusBridge version that wrote it.
    public var version: String

    public init(device: String, sequence: UInt64, change: SharedChange?, version: String) {
        self.device = device
        self.sequence = sequence
        self.change = change
        self.version = version
    }

    /// The order of two changes: the newer `changed` wins (to the millisecond, as files say
    /// it), the greater device name breaks a tie.
    public struct Key: Comparable, Equatable, Codable, Sendable {
        public var changed: Instant
        public var device: String

        public init(changed: Instant, device: String) {
            self.changed = changed
            self.device = device
        }

        var milliseconds: Int64 { SharedFocus.milliseconds(changed) }

        public static func < (a: Key, b: Key) -> Bool {
            a.milliseconds != b.milliseconds ? a.milliseconds < b.milliseconds : a.device < b.device
        }

        public static func == (a: Key, b: Key) -> Bool { a.milliseconds == b.milliseconds && a.device == b.device }
    }

    public var key: Key? { change.map { Key(changed: $0.changed, device: device) } }
}

public enum SharedFocus {
    /// At most this many other devices are followed; files of more are ignored.
    public static let maxDevices = 64
    /// The largest device file read; a larger one is ignored.
    public static let maxFileBytes = 64 * 1024
    /// Device names: 1 to 64 of letters, digits, `.`, `_`, `-`, not starting with `.` (nor a
    /// name a sync engine makes for its conflict copies).
    public static let maxDeviceNameBytes = 64
    /// The longest Focus name and version text taken from a file.
    static let maxNameBytes = 256
    /// How far ahead of this device's clock a change may be stamped and still be taken: a clock
    /// ahead by minutes or hours is skew; by more than a day it is broken, and taking its stamp
    /// would put every later change of every device that far ahead too.
    public static let maxSkew: Double = 86_400
    /// How deep a file's JSON may nest (a device file nests one level).
    static let maxDepth = 16

    // MARK: Names

    /// Whether `name` can name a device (and its file, `NAME.json`).
    public static func isValidDevice(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maxDeviceNameBytes, bytes[0] != UInt8(ascii: ".") else { return false }
        let allowed = bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        return allowed && !isConflictName(name)
    }

    /// The sentence refusing a device name (for the configuration reader).
    public static let deviceNameRule = "a device name is 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'"

    /// The default device name: the host name, its other characters as `-`, cut to 64 bytes
    /// ("device" when nothing is left).
    public static func deviceName(host: String) -> String {
        var name = String(String.UnicodeScalarView(host.unicodeScalars.map { scalar in
            let allowed = scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || scalar == "." || scalar == "_" || scalar == "-")
            return allowed ? scalar : "-"
        }))
        while name.hasPrefix(".") { name.removeFirst() }
        name = String(name.prefix(maxDeviceNameBytes))
        return isValidDevice(name) ? name : "device"
    }

    /// The device whose file `fileName` is, or nil for every other file: hidden and temporary
    /// files of sync engines and editors (`.syncthing.X.tmp`, `~syncthing~X.tmp`, `X.json~`,
    /// `.X.json.part`), conflict copies (`X.sync-conflict-20261122-101500-ABCDEFG.json`,
    /// `X (conflicted copy 2026-11-22).json`, `X (conflict 2026-11-22).json`), anything else.
    public static func device(ofFile fileName: String) -> String? {
        guard fileName.hasSuffix(".json") else { return nil }
        let stem = String(fileName.dropLast(5))
        return isValidDevice(stem) ? stem : nil
    }

    /// The file a device writes.
    public static func fileName(of device: String) -> String { device + ".json" }

    /// Conflict copies of Syncthing, Nextcloud/ownCloud, Dropbox and Resilio.
    static func isConflictName(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return [".sync-conflict-", "sync-conflict-", "conflicted copy", "(conflict", ".conflict-", "conflict-copy"]
            .contains { lowered.contains($0) }
    }

    // MARK: Reading and writing files

    /// Why a file was not taken.
    public enum Unreadable: Error, Equatable, CustomStringConvertible {
        case tooLarge(Int)
        case notJSON
        case wrongDevice(String)
        case invalid(String)

        public var description: String {
            switch self {
            case .tooLarge(let bytes): return "it is larger than \(SharedFocus.maxFileBytes) bytes (\(bytes))"
            case .notJSON: return "it is not a JSON object (garbled or cut short)"
            case .wrongDevice(let device): return "it names another device (\"\(device.prefix(80))\")"
            case .invalid(let why): return why
            }
        }
    }

    /// The file as the bridge writes it: one JSON object with sorted keys, times as `Timestamp`s.
    public static func encode(_ record: SharedFocusRecord) -> [UInt8] {
        let wire = Wire(device: record.device, sequence: record.sequence, focus: record.change?.focus,
                        since: record.change.map { Timestamp.string($0.since) },
                        until: record.change?.until.map(Timestamp.string),
                        changed: record.change.map { Timestamp.string($0.changed) }, version: record.version)
        return Array((JSONText.encode(wire) + "\n").utf8)
    }

    /// Reads the file of `device` leniently: fields it does not know (a newer version's) are
    /// ignored; what it needs must be there, of the right type and within bounds.
    public static func decode(_ bytes: [UInt8], device: String) -> Result<SharedFocusRecord, Unreadable> {
        guard bytes.count <= maxFileBytes else { return .failure(.tooLarge(bytes.count)) }
        // The parser's limits bound the nesting (a file of 64 KiB of `[` costs no deep recursion);
        // anything but an object fails to decode as one.
        guard let wire = try? JSONText.decode(Wire.self, from: bytes, limits: .init(maxBytes: maxFileBytes, maxDepth: maxDepth)) else {
            return .failure(.notJSON)
        }
        guard let named = wire.device else { return .failure(.invalid("it has no \"device\"")) }
        guard named == device else { return .failure(.wrongDevice(named)) }
        guard let sequence = wire.sequence, sequence <= 1 << 53 else {
            return .failure(.invalid("its \"sequence\" is missing or out of range"))
        }
        let version = KeptText.cut(wire.version ?? "unknown", maxBytes: 64)
        guard sequence > 0 else {
            return .success(SharedFocusRecord(device: device, sequence: 0, change: nil, version: version))
        }
        func time(_ text: String?, _ key: String) -> Result<Instant?, Unreadable> {
            guard let text else { return .success(nil) }
            guard let date = Timestamp.parse(text), TimeBounds.contains(date) else {
                return .failure(.invalid("its \"\(key)\" is not a time (\(text.prefix(40)))"))
            }
            return .success(date)
        }
        let since: Instant?, until: Instant?, changed: Instant?
        switch (time(wire.since, "since"), time(wire.until, "until"), time(wire.changed, "changed")) {
        case (.success(let a), .success(let b), .success(let c)): (since, until, changed) = (a, b, c)
        case (.failure(let error), _, _), (_, .failure(let error), _), (_, _, .failure(let error)): return .failure(error)
        }
        guard let since else { return .failure(.invalid("it has no \"since\"")) }
        if let focus = wire.focus, focus.isEmpty || focus.utf8.count > maxNameBytes {
            return .failure(.invalid("its \"focus\" is not a Focus name"))
        }
        // An older writer without "changed" orders by "since".
        let change = SharedChange(focus: wire.focus, since: since, until: until, changed: changed ?? since)
        return .success(SharedFocusRecord(device: device, sequence: sequence, change: change, version: version))
    }

    /// The file's JSON. Every field optional: what is missing is judged by `decode`.
    struct Wire: Codable {
        var device: String?
        var sequence: UInt64?
        @Nullable var focus: String?
        @Nullable var since: String?
        @Nullable var until: String?
        @Nullable var changed: String?
        var version: String?

        init(device: String?, sequence: UInt64?, focus: String?, since: String?, until: String?, changed: String?, version: String?) {
            self.device = device
            self.sequence = sequence
            self.focus = focus
            self.since = since
            self.until = until
            self.changed = changed
            self.version = version
        }
    }
}

/// A change from another device to apply here.
public struct SharedApply: Equatable, Sendable {
    public var device: String
    /// The Focus to turn on, or nil: off.
    public var focus: String?
    /// When it started here: the writer's `since`, but never in the future (a device whose
    /// clock is ahead is taken now).
    public var since: Instant
    /// The end the person gave, as written: a clock ahead or behind never ends the Focus here
    /// before it. Nil: this device's own next schedule boundary ends it.
    public var until: Instant?

    public init(device: String, focus: String?, since: Instant, until: Instant?) {
        self.device = device
        self.focus = focus
        self.since = since
        self.until = until
    }
}

/// What this device remembers of sharing (kept in the store as JSON): its own changes, the
/// newest change taken, and each other device's last file. Every decision about another
/// device's file is made here, with the time given (no clock, no I/O).
public struct ShareLedger: Equatable, Codable, Sendable {
    /// This device's last sequence number written.
    public var sequence: UInt64 = 0
    /// This device's own last change (what its file says).
    public var own: SharedChange?
    /// The newest change taken here, this device's own or applied from another.
    public var newest: SharedFocusRecord.Key?
    public var devices: [String: Seen] = [:]
    /// Devices forgotten (`focusctl share forget`), with the last sequence seen from each: their
    /// file, while unchanged, does not bring them back.
    public var forgotten: [String: UInt64] = [:]

    public struct Seen: Equatable, Codable, Sendable {
        public var sequence: UInt64
        public var change: SharedChange?
        public var version: String
        /// When this sequence was first read here (this device's clock).
        public var seen: Instant
        /// Whether that change was applied here.
        public var applied: Bool
        /// Why a change it made was not applied; nil when applied or when it made none yet.
        public var notApplied: NotApplied?

        public init(sequence: UInt64, change: SharedChange?, version: String, seen: Instant, applied: Bool,
                    notApplied: NotApplied? = nil) {
            self.sequence = sequence
            self.change = change
            self.version = version
            self.seen = seen
            self.applied = applied
            self.notApplied = notApplied
        }
    }

    /// Why another device's change is not in effect here (`focusctl share status`).
    public enum NotApplied: String, Equatable, Codable, Sendable {
        /// A newer change had been taken here (this device's own, or another device's).
        case older
        /// It turns on a Focus this device does not have.
        case unknownFocus = "unknown-focus"
        /// Stamped more than `SharedFocus.maxSkew` ahead of this device's clock.
        case farFuture = "far-future"
    }

    public init() {}

    /// Why a file was not applied.
    public enum Ignored: Equatable, Sendable {
        /// Its sequence was taken already (the same file again, or an older one put back).
        case replayed
        /// It holds no change yet.
        case noChange
        /// A newer change was taken here (this device's own, or another device's).
        case older
        /// The file of this device itself.
        case ownDevice
        /// `maxDevices` are followed already.
        case tooManyDevices
        /// Stamped more than `SharedFocus.maxSkew` ahead of this device's clock.
        case farFuture
    }

    public struct Outcome: Equatable, Sendable {
        /// The one change to apply, the newest of those read; nil: nothing changes.
        public var apply: SharedApply?
        public var ignored: [String: Ignored] = [:]

        public init(apply: SharedApply? = nil, ignored: [String: Ignored] = [:]) {
            self.apply = apply
            self.ignored = ignored
        }
    }

    /// A change made here (`focus on|off`): the record to write to this device's file. Its
    /// order stamp is `now` to the millisecond, but after every change taken so far.
    public mutating func recordOwn(focus: String?, until: Instant?, device: String, version: String, at now: Instant) -> SharedFocusRecord {
        var stamp = SharedFocus.milliseconds(now, rounding: .down)
        if let newest { stamp = max(stamp, newest.milliseconds + 1) }
        // Cut to the millisecond below, as `Timestamp.string` writes them here.
        let change = SharedChange(focus: focus, since: SharedFocus.instant(SharedFocus.milliseconds(now, rounding: .down)),
                                  until: until.map { SharedFocus.instant(SharedFocus.milliseconds($0, rounding: .down)) },
                                  changed: SharedFocus.instant(stamp))
        sequence += 1
        own = change
        newest = SharedFocusRecord.Key(changed: change.changed, device: device)
        return ownRecord(device: device, version: version)
    }

    /// This device's file as it should be.
    public func ownRecord(device: String, version: String) -> SharedFocusRecord {
        SharedFocusRecord(device: device, sequence: sequence, change: sequence == 0 ? nil : own, version: version)
    }

    /// This device's file found in the folder: a higher sequence there (written before the state
    /// was lost, or by the same name elsewhere) is continued from, so others keep taking ours.
    public mutating func adopt(ownFile record: SharedFocusRecord) {
        guard record.sequence > sequence else { return }
        sequence = record.sequence
        own = record.change
        if let key = record.key, newest.map({ key > $0 }) ?? true { newest = key }
    }

    /// Reads the files of other devices found at `now`: each one's last change is remembered,
    /// and the newest change that is newer than everything taken here is the one to apply.
    public mutating func merge(_ records: [SharedFocusRecord], ownDevice: String, at now: Instant) -> Outcome {
        var outcome = Outcome()
        var candidates: [SharedFocusRecord] = []
        // In name order, so which devices are beyond the limit does not depend on the listing.
        for record in records.sorted(by: { $0.device < $1.device }) {
            if record.device == ownDevice {
                outcome.ignored[record.device] = .ownDevice
                continue
            }
            if let previous = devices[record.device]?.sequence ?? forgotten[record.device], record.sequence <= previous {
                outcome.ignored[record.device] = .replayed
                continue
            }
            if devices[record.device] == nil && devices.count >= SharedFocus.maxDevices {
                outcome.ignored[record.device] = .tooManyDevices
                continue
            }
            forgotten[record.device] = nil
            devices[record.device] = Seen(sequence: record.sequence, change: record.change, version: record.version,
                                          seen: now, applied: false)
            guard let key = record.key else {
                outcome.ignored[record.device] = .noChange
                continue
            }
            if key.changed.timeIntervalSince(now) > SharedFocus.maxSkew {
                outcome.ignored[record.device] = .farFuture
                devices[record.device]?.notApplied = .farFuture
                continue
            }
            if let newest, key <= newest {
                outcome.ignored[record.device] = .older
                devices[record.device]?.notApplied = .older
                continue
            }
            candidates.append(record)
        }
        guard let best = candidates.max(by: { $0.key! < $1.key! }), let change = best.change, let key = best.key else {
            return outcome
        }
        for other in candidates where other.device != best.device {
            outcome.ignored[other.device] = .older
            devices[other.device]?.notApplied = .older
        }
        newest = key
        devices[best.device]?.applied = true
        outcome.apply = SharedApply(device: best.device, focus: change.focus, since: min(change.since, now), until: change.until)
        return outcome
    }

    /// The change of `device` just applied could not be (a Focus this device does not have):
    /// `share status` says it is ignored and why.
    public mutating func notApplied(_ device: String, because reason: NotApplied) {
        devices[device]?.applied = false
        devices[device]?.notApplied = reason
    }

    /// Forgets a device (`focusctl share forget`); false when it was not known.
    public mutating func forget(_ device: String) -> Bool {
        guard let seen = devices.removeValue(forKey: device) else { return false }
        forgotten[device] = seen.sequence
        // Bounded: the oldest forgotten names go first (by name: any order is as good).
        while forgotten.count > SharedFocus.maxDevices, let first = forgotten.keys.sorted().first {
            forgotten[first] = nil
        }
        return true
    }

    /// A value read back from the store: every time in bounds, at most `maxDevices` devices.
    public var isPlausible: Bool {
        func plausible(_ change: SharedChange?) -> Bool {
            guard let change else { return true }
            return [change.since, change.changed].allSatisfy(TimeBounds.contains) && change.until.map(TimeBounds.contains) ?? true
        }
        return plausible(own) && newest.map { TimeBounds.contains($0.changed) } ?? true
            && devices.count <= SharedFocus.maxDevices && forgotten.count <= SharedFocus.maxDevices
            && devices.values.allSatisfy { plausible($0.change) && TimeBounds.contains($0.seen) }
    }

}

extension SharedFocus {
    /// `date` in whole milliseconds since 1970, to the nearest (a time read from a file is a
    /// sum of seconds and milliseconds; its last bits must not decide an order), or cut down
    /// (a time of the clock, as `Timestamp.string` writes it).
    static func milliseconds(_ date: Instant, rounding: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(rounding)
        return value.isFinite ? Int64(max(min(value, 1e15), -1e15)) : 0
    }

    /// The instant of `milliseconds`, a quarter of a millisecond in, so that `Timestamp.string`
    /// (which cuts to the millisecond below) writes exactly these milliseconds.
    static func instant(_ milliseconds: Int64) -> Instant {
        Instant(timeIntervalSince1970: (Double(milliseconds) + 0.25) / 1000)
    }
}
