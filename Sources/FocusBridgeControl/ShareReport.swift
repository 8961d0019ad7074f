import FocusBridgeCore
import FocusBridgeTime

/// `focusctl share status --json`: sharing through a folder (`[share]`), this device and each
/// device seen. Times are `Timestamp` strings; absent values are `null`.
public struct ShareReport: Codable, Equatable, Sendable {
    /// One manual change as a device made it.
    public struct Change: Codable, Equatable, Sendable {
        /// The Focus turned on; null: turned off.
        @Nullable public var focus: String?
        public var since: String
        @Nullable public var until: String?
        /// Its place in the order of changes (the newest wins).
        public var changed: String

        public init(_ change: SharedChange) {
            focus = change.focus
            since = Timestamp.string(change.since)
            until = change.until.map(Timestamp.string)
            changed = Timestamp.string(change.changed)
        }
    }

    public struct Device: Codable, Equatable, Sendable {
        public var device: String
        public var sequence: UInt64
        @Nullable public var lastChange: Change?
        public var version: String
        /// When this device's last change was first read here.
        public var seen: String
        /// Whether its last change was applied here.
        public var applied: Bool
        /// Why its last change is not in effect here: `older` (a newer change had been made),
        /// `unknown-focus` (a Focus this device does not have), `far-future` (stamped more than a
        /// day ahead of this device's clock); null when applied or when it made none.
        @Nullable public var ignored: String?

        enum CodingKeys: String, CodingKey {
            case device, sequence, version, seen, applied, ignored
            case lastChange = "last-change"
        }

        public init(device: String, _ seen: ShareLedger.Seen) {
            self.device = device
            sequence = seen.sequence
            lastChange = seen.change.map(Change.init)
            version = seen.version
            self.seen = Timestamp.string(seen.seen)
            applied = seen.applied
            ignored = seen.applied || seen.change == nil ? nil : (seen.notApplied ?? .older).rawValue
        }
    }

    public var enabled: Bool
    /// The folder, `~/` expanded; null when sharing is off.
    @Nullable public var folder: String?
    /// This device's name in the folder.
    public var device: String
    /// What keeps sharing from working now (the folder missing or not writable); null: nothing.
    @Nullable public var problem: String?
    /// The changes made here so far.
    public var sequence: UInt64
    @Nullable public var lastChange: Change?
    /// The other devices, by name.
    public var devices: [Device]

    enum CodingKeys: String, CodingKey {
        case enabled, folder, device, problem, sequence, devices
        case lastChange = "last-change"
    }

    public init(folder: String?, device: String, problem: String?, ledger: ShareLedger) {
        enabled = folder != nil
        self.folder = folder
        self.device = device
        self.problem = problem
        sequence = ledger.sequence
        lastChange = ledger.own.map(Change.init)
        devices = ledger.devices.sorted { $0.key < $1.key }.map { Device(device: $0.key, $0.value) }
    }
}

/// `focusctl share forget DEVICE --json`.
public struct ShareForgetReport: Codable, Equatable, Sendable {
    public var device: String
    public var message: String

    public init(device: String, message: String) {
        self.device = device
        self.message = message
    }
}
