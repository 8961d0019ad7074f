import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeLoop
import FocusBridgeStore
import FocusBridgeSystem
import FocusBridgeTime
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// `[share]`: this device's manual Focus changes written to `DEVICE.json` in a folder that a
/// sync engine keeps the same on every device, and the other devices' files read back when the
/// folder changes (inotify, no polling). What to apply is decided by `ShareLedger`; here is only
/// the folder: listing, bounded reading, atomic writing, and one log line per problem.
final class ShareFolder {
    private let store: Store
    private let logger: Logger
    private let clock: Clock
    private let environment: [String: String]
    /// Applies another device's change; false when this device cannot (a Focus it lacks).
    private let apply: (SharedApply) -> Bool
    private(set) var settings = ShareSettings()
    /// The folder, `~/` expanded; nil: sharing is off.
    private(set) var folder: String?
    private(set) var device: String
    private(set) var ledger: ShareLedger
    private var monitor: DirectoryMonitor?
    /// While the folder is missing: the nearest missing folder on its way, watched to appear.
    private var appearance: FileMonitor?
    private var scanTimer = SourceID.none
    /// What is wrong now (missing, unwritable), said once in the log and in `share status`.
    private(set) var problem: String?
    /// Files found unreadable, with what was read: each said once until it changes.
    private var complaints: [String: Int] = [:]
    private var saidTooMany = false
    private var ownFileStale = true

    /// How many entries of the folder are looked at, and how many device files read, per scan.
    static let maxEntries = 10_000

    init(store: Store, clock: Clock = SystemClock(), environment: [String: String] = Environment.all,
         logger: Logger, apply: @escaping (SharedApply) -> Bool) {
        self.store = store
        self.clock = clock
        self.environment = environment
        self.logger = logger
        self.apply = apply
        device = SharedFocus.deviceName(host: Self.hostName())
        ledger = Self.storedLedger(store, logger: logger)
    }

    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func storedLedger(_ store: Store, logger: Logger) -> ShareLedger {
        guard let text = (try? store.setting(.share)) ?? nil else { return ShareLedger() }
        guard let ledger = try? JSONText.decode(ShareLedger.self, from: text), ledger.isPlausible else {
            logger.warning("the stored state of [share] is not valid; it is discarded (the devices are read again from the folder)")
            return ShareLedger()
        }
        return ledger
    }

    private func save() {
        do { try store.setSetting(.share, JSONText.encode(ledger)) } catch {
            logger.error("cannot record the state of [share]: \(error)")
        }
    }

    // MARK: Settings

    /// Takes the `[share]` table (at start and on every reload); a new folder or device name
    /// starts over with it.
    func configure(_ settings: ShareSettings) {
        let folder = settings.folder.map(expand)
        let device = settings.device ?? SharedFocus.deviceName(host: Self.hostName())
        guard folder != self.folder || device != self.device else { return }
        self.settings = settings
        self.folder = folder
        self.device = device
        monitor = nil
        appearance = nil
        problem = nil
        complaints = [:]
        ownFileStale = true
        MainLoop.cancel(scanTimer)
        scanTimer = .none
        guard let folder else {
            logger.info("share: off")
            return
        }
        logger.info("share: Focus shared through \(folder) as \(device)")
        arm()
        scan()
    }

    private func expand(_ path: String) -> String {
        guard path.hasPrefix("~/") else { return FilePath.standardized(path) }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? Environment.homeDirectory
        return FilePath.standardized(home + "/" + path.dropFirst(2))
    }

    // MARK: Watching

    /// Watches the folder's entries, or, while it is missing, the nearest missing folder on
    /// its way (as `ConfigWatch` does): sharing resumes when it is there.
    private func arm() {
        guard let folder else { return }
        if let monitor = DirectoryMonitor(path: folder, { [weak self] name in self?.entryChanged(name) }) {
            self.monitor = monitor
            appearance = nil
            return
        }
        monitor = nil
        var missing = folder
        var parent = FilePath.parent(folder)
        while parent != "/" && !parent.isEmpty && !Self.isFolder(parent) {
            missing = parent
            parent = FilePath.parent(parent)
        }
        appearance = FileMonitor(path: missing) { [weak self] in self?.soon() }
        // It may have appeared between the look and the watch.
        if FileStatus.exists(missing) { soon() }
    }

    /// The folder is not there: said once, and watched for.
    private func folderMissing(_ folder: String) {
        report("the share folder \(folder) does not exist or is not a folder; sharing resumes when it is there")
        arm()
    }

    private func entryChanged(_ name: String?) {
        // Temporary files and conflict copies come and go without a look.
        if let name, SharedFocus.device(ofFile: name) == nil, name != folder.map(FilePath.lastComponent) {
            return
        }
        soon()
    }

    /// A sync engine writes in bursts: one scan once it has settled.
    private func soon() {
        guard scanTimer == .none else { return }
        scanTimer = MainLoop.after(milliseconds: 100) { [weak self] in
            self?.scanTimer = .none
            self?.scan()
        }
    }

    static func isFolder(_ path: String) -> Bool {
        FileStatus.isDirectory(path)
    }

    // MARK: Reading

    /// Reads the folder: takes the newest change of the other devices, and writes this
    /// device's file when it is missing or not what it should be.
    func scan() {
        guard let folder else { return }
        guard Self.isFolder(folder) else { return folderMissing(folder) }
        if monitor == nil { arm() }
        // Back after a problem: the folder may have lost this device's file meanwhile.
        if problem != nil { ownFileStale = true }
        let now = clock.now
        var records: [SharedFocusRecord] = []
        var own: SharedFocusRecord?
        for (name, device) in deviceFiles(in: folder) {
            guard let record = read(folder + "/" + name, device: device) else {
                if device == self.device { ownFileStale = true }
                continue
            }
            if device == self.device { own = record } else { records.append(record) }
        }
        if let own { ledger.adopt(ownFile: own) }
        if own?.sequence != ledger.sequence || own == nil { ownFileStale = true }
        let outcome = ledger.merge(records, ownDevice: device, at: now)
        let tooMany = outcome.ignored.filter { $0.value == .tooManyDevices }.map(\.key).sorted()
        if !tooMany.isEmpty && !saidTooMany {
            logger.warning("share: more than \(SharedFocus.maxDevices) devices in \(folder); ignored: \(tooMany.prefix(5).joined(separator: ", "))\(tooMany.count > 5 ? ", …" : "") (focusctl share forget DEVICE makes room)")
        }
        saidTooMany = !tooMany.isEmpty
        // Said once per change: read again, it is a replay.
        for device in outcome.ignored.filter({ $0.value == .farFuture }).map(\.key).sorted() {
            logger.warning("share: the last change of \(device) is stamped more than a day ahead of this device's clock; ignored (is its clock right?)")
        }
        save()
        if let change = outcome.apply {
            let what = change.focus.map { "\"\($0.escapingControlCharacters)\" on" } ?? "Focus off"
            if apply(change) {
                logger.info("share: \(what) from \(change.device)")
            } else {
                logger.warning("share: \(change.device) turned \(what), a Focus this device does not have; ignored")
                ledger.notApplied(change.device, because: .unknownFocus)
                save()
            }
        }
        if ownFileStale { writeOwn() }
    }

    /// The device files of the folder (in name order), those of known devices first, at most
    /// `maxDevices` others and this device's own.
    private func deviceFiles(in folder: String) -> [(name: String, device: String)] {
        guard let directory = opendir(folder) else { return [] }
        defer { closedir(directory) }
        var found: [(name: String, device: String)] = []
        var looked = 0
        while looked < Self.maxEntries, let entry = readdir(directory) {
            looked += 1
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if let device = SharedFocus.device(ofFile: name) { found.append((name, device)) }
        }
        let known = Set(ledger.devices.keys).union([device])
        let (ours, others) = (found.filter { known.contains($0.device) }, found.filter { !known.contains($0.device) })
        return (ours + others.sorted { $0.device < $1.device }.prefix(SharedFocus.maxDevices + 1))
    }

    /// One device file, or nil (said once in the log) when it cannot be read or taken.
    private func read(_ path: String, device: String) -> SharedFocusRecord? {
        let name = FilePath.lastComponent(path)
        let bytes: [UInt8]
        switch Self.readRegularFile(path, limit: SharedFocus.maxFileBytes) {
        case .success(let read): bytes = read
        case .failure(let problem):
            if problem.gone { return nil } // removed between the listing and the reading
            complain(name, about: problem.description, signature: problem.description.hashValue)
            return nil
        }
        switch SharedFocus.decode(bytes, device: device) {
        case .success(let record):
            complaints[name] = nil
            return record
        case .failure(let problem):
            complain(name, about: problem.description, signature: bytes.hashValue)
            return nil
        }
    }

    private func complain(_ name: String, about problem: String, signature: Int) {
        guard complaints[name] != signature else { return }
        if complaints.count >= 4 * SharedFocus.maxDevices { complaints.removeAll() }
        complaints[name] = signature
        logger.warning("share: \(name) in \(folder ?? "") is ignored: \(problem.escapingControlCharacters)")
    }

    /// Why a file in the folder cannot be read (`gone`: there is no such file).
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
        var gone = false
    }

    /// At most `limit` bytes of a regular file (never a FIFO, a device or a folder: a file in a
    /// shared folder must not block the bridge); more is refused.
    static func readRegularFile(_ path: String, limit: Int) -> Result<[UInt8], Unreadable> {
        do {
            return .success(try FileReading.readRegularFile(path, limit: limit))
        } catch {
            switch error {
            case .system(let error) where error.isMissing:
                return .failure(Unreadable(description: "cannot open it (\(error))", gone: true))
            case .system(let error): return .failure(Unreadable(description: "cannot read it (\(error))"))
            case .notRegularFile: return .failure(Unreadable(description: "it is not a regular file"))
            case .tooLarge(let limit): return .failure(Unreadable(description: "it is larger than \(limit) bytes"))
            }
        }
    }

    // MARK: Writing

    /// A manual change made here (`focus on|off`): written to this device's file.
    func publish(_ change: ManualFocus, endGiven: Bool) {
        guard folder != nil else { return }
        let focus: String?
        switch change.state {
        case .on(let name): focus = name
        case .off: focus = nil
        }
        _ = ledger.recordOwn(focus: focus, until: endGiven ? change.until : nil, device: device,
                             version: focusBridgeVersion, at: change.since)
        save()
        ownFileStale = true
        writeOwn()
    }

    /// Writes this device's file atomically: a hidden temporary file in the folder, then a
    /// rename over `DEVICE.json` (a sync engine never sends half a file).
    private func writeOwn() {
        guard let folder else { return }
        guard Self.isFolder(folder) else { return folderMissing(folder) }
        let target = folder + "/" + SharedFocus.fileName(of: device)
        let bytes = SharedFocus.encode(ledger.ownRecord(device: device, version: focusBridgeVersion))
        // Through `.DEVICE.json.tmp`, one name, so that a write cut short by a crash leaves
        // nothing behind after the next.
        do { try AtomicFile.write(bytes, to: target, mode: 0o644) } catch {
            return report("cannot write \(target) (\(error)); sharing resumes when the folder can be written")
        }
        ownFileStale = false
        report(nil)
    }

    /// Says a problem once (and that it is over, once).
    private func report(_ problem: String?) {
        guard problem != self.problem else { return }
        if let problem {
            logger.warning("share: \(problem)")
        } else if let folder {
            logger.info("share: writing to \(folder) again")
        }
        self.problem = problem
    }

    // MARK: Status

    func forget(_ name: String) -> Bool {
        guard ledger.forget(name) else { return false }
        save()
        complaints = complaints.filter { $0.key != SharedFocus.fileName(of: name) }
        return true
    }
}
