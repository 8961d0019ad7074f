import ArgumentParser
import FocusBridgeConfig
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeStore
import FocusBridgeSystem
#if canImport(Glibc)
import Glibc
#endif

/// `focusctl doctor [--json]`: what is wrong and the sentence that fixes it, one line per check
/// (`Doctor.checks`); exit 0 when nothing is, 1 otherwise. This file gathers the facts: the
/// session bus and the bridge on it, the configuration, the files that start programs at login,
/// the state folder. It works without a session bus and without a running bridge.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the bridge, its daemon, the configuration and what starts at login; say how to fix each problem.")

    @OptionGroup var output: JSONOutput<JSONHelp.Doctor>

    func run() throws {
        let report = Doctor.Report(Doctor.checks(SessionFacts.gather()))
        if output.json {
            print(JSONText.encode(report))
        } else {
            let width = report.checks.map(\.check.count).max() ?? 0
            for check in report.checks {
                let name = check.check + String(repeating: " ", count: width - check.check.count)
                let line = "\(check.ok ? "✓" : "✗") \(name)  \(check.found)" + (check.fix.map { " — \($0)" } ?? "")
                print(line.escapingControlCharacters)
            }
        }
        if !report.ok { throw ExitCode(1) }
    }
}

/// Reads what `Doctor` decides on. Every file is read bounded, as a regular file; what cannot
/// be read counts as absent.
enum SessionFacts {
    static let textLimit = 1 << 20
    static let folderLimit = 4_000

    static func gather() -> Doctor.Facts {
        let environment = Environment.all
        let userManager = StartAdvice.userManagerSocket(environment).map(FileStatus.exists) ?? false
        let unitPath = installedUnit(environment)
        let links = unitLinks(environment)
        let kind = SessionKind(environment: environment)

        var facts = Doctor.Facts(environment: environment, config: .init(path: "", exists: false), state: .absent(folder: ""))
        facts.userManager = userManager
        facts.unitPath = unitPath
        facts.unitLinks = links.filter { FilePath.lastComponent($0) == StartAdvice.unitName }
        facts.otherUnitLinks = links.compactMap { link in
            let name = FilePath.lastComponent(link)
            return KnownDaemon.all.first { $0.name + ".service" == name }.map { ($0.name, link) }
        }
        facts.autostart = autostartEntries(environment)
        facts.startFiles = StartFile.candidates(for: kind, environment: environment).compactMap { file in
            text(file.path).map { (file, $0) }
        }
        facts.activation = activationFiles(environment)

        // The bus and the bridge on it.
        var bus: VariantConnection?
        if !SessionBusAddress.isKnown(environment) {
            facts.noBus = "DBUS_SESSION_BUS_ADDRESS is not set, and there is no $XDG_RUNTIME_DIR/bus"
        } else {
            do { bus = try VariantConnection.session() } catch {
                facts.noBus = "the session bus does not answer (\(error.message))"
            }
        }
        var share: ShareReport?
        if let bus {
            if let owner = bus.nameOwner(ControlNames.busName) {
                facts.bridgeProcessID = bus.processID(of: owner)
                do {
                    let reply = try bus.callSync(ControlNames.busName, ControlNames.path, ControlNames.interface,
                                                 Control1Method.status.rawValue, nil, replyType: Control1Method.status.replyType,
                                                 timeoutMilliseconds: 10_000)
                    facts.status = try JSONText.decode(StatusReport.self, from: reply.child(0).string ?? "null")
                    let shared = try bus.callSync(ControlNames.busName, ControlNames.path, ControlNames.interface,
                                                  Control1Method.shareStatus.rawValue, nil,
                                                  replyType: Control1Method.shareStatus.replyType, timeoutMilliseconds: 10_000)
                    share = try? JSONText.decode(ShareReport.self, from: shared.child(0).string ?? "null")
                } catch {
                    if facts.status == nil { facts.unanswered = "\(error)" }
                }
                facts.gtkOwner = NameOwner.lookup("org.gtk.Notifications", nameOwner: bus.nameOwner,
                                                  processID: { bus.processID(of: $0) })
            } else {
                let processID: (String) -> UInt32? = { bus.processID(of: $0) }
                facts.notificationsOwner = NameOwner.lookup("org.freedesktop.Notifications", nameOwner: bus.nameOwner,
                                                            processID: processID)
                facts.gtkOwner = NameOwner.lookup("org.gtk.Notifications", nameOwner: bus.nameOwner, processID: processID)
            }
        }
        facts.programPath = facts.bridgeProcessID.flatMap { try? FileStatus.symbolicLinkDestination("/proc/\($0)/exe") }
            ?? onPath("focus-bridge", environment) ?? besideFocusctl()

        // The configuration: the running bridge's file, else the one it would read.
        let path = facts.status?.config?.path ?? (try? EnvironmentPaths.configFile()) ?? "~/.config/focus-bridge/config.toml"
        var configuration: Configuration?
        do { configuration = try Configuration.load(path: path) } catch {
            facts.config.problems = error.lines
        }
        facts.config.path = path
        facts.config.exists = FileStatus.exists(path)

        // The state folder, read only while no bridge here reports its own.
        if facts.status == nil {
            let folder = (try? EnvironmentPaths.stateFolder()) ?? "~/.local/state/focus-bridge"
            facts.state = switch StateInspection.inspect(folder: folder) {
            case .absent: .absent(folder: folder)
            case .healthy(let path): .healthy(path: path)
            case .inUse(let processID): .inUse(folder: folder, processID: processID)
            case .broken(let path, let reason): .broken(path: path, reason: reason)
            case .unusable(let path, let reason): .unusable(path: path, reason: reason)
            }
        }

        // [share] folder, when set: the bridge's word on it, else whether it is there and writable.
        if let share, let folder = share.folder {
            facts.share = .init(folder: folder, problem: share.problem, devices: share.devices.count)
        } else if facts.status == nil, let written = configuration?.share.folder {
            let folder = FilePath.standardized(written)
            let problem: String? = if !FileStatus.isDirectory(folder) {
                "there is no such folder"
            } else if access(folder, W_OK) != 0 {
                "it cannot be written"
            } else {
                nil
            }
            facts.share = .init(folder: folder, problem: problem)
        }
        return facts
    }

    /// A regular file's text, at most `textLimit` bytes; nil when it cannot be read.
    static func text(_ path: String) -> String? {
        guard let bytes = try? FileReading.readRegularFile(path, limit: textLimit) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The names in a folder (nil when it cannot be listed), sorted, at most `folderLimit`.
    static func names(_ folder: String) -> [String] {
        ((try? Folders.entries(of: folder, limit: folderLimit)) ?? []).sorted()
    }

    /// focus-bridge.service in the first of systemd's user unit folders that has it.
    static func installedUnit(_ environment: [String: String]) -> String? {
        StartAdvice.userUnitFolders(environment).map { $0 + "/" + StartAdvice.unitName }.first(where: FileStatus.exists)
    }

    /// Every enabling link (`FOLDER/TARGET.wants/UNIT`) in the folders `systemctl --user enable` writes.
    static func unitLinks(_ environment: [String: String]) -> [String] {
        StartAdvice.userUnitLinkFolders(environment).flatMap { folder in
            names(folder).filter { $0.hasSuffix(".wants") || $0.hasSuffix(".requires") }.flatMap { wants in
                names(folder + "/" + wants).map { folder + "/" + wants + "/" + $0 }
            }
        }
    }

    /// The autostart entries in effect: a file name in an earlier folder hides a later one.
    static func autostartEntries(_ environment: [String: String]) -> [AutostartEntry] {
        var seen: Set<String> = []
        var entries: [AutostartEntry] = []
        for folder in AutostartEntry.folders(environment: environment) {
            for name in names(folder) where name.hasSuffix(".desktop") && seen.insert(name).inserted {
                let path = folder + "/" + name
                if let text = text(path) { entries.append(AutostartEntry(path: path, text: text)) }
            }
        }
        return entries
    }

    /// The activation files offering org.freedesktop.Notifications, per service folder, in the bus's order.
    static func activationFiles(_ environment: [String: String]) -> [(folder: String, files: [ActivationFile])] {
        ActivationFile.folders(environment: environment).compactMap { folder in
            let files = names(folder).filter { $0.hasSuffix(".service") }.compactMap { name -> ActivationFile? in
                let path = folder + "/" + name
                return text(path).flatMap { ActivationFile(path: path, text: $0) }
            }
            return files.isEmpty ? nil : (folder, files)
        }
    }

    /// The focus-bridge installed beside this focusctl.
    static func besideFocusctl() -> String? {
        guard let own = try? FileStatus.symbolicLinkDestination("/proc/self/exe") else { return nil }
        let path = FilePath.parent(own) + "/focus-bridge"
        return FileStatus.isExecutableFile(path) ? path : nil
    }

    /// `program` found in a folder of PATH.
    static func onPath(_ program: String, _ environment: [String: String]) -> String? {
        (environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(program)" }.first(where: FileStatus.isExecutableFile)
    }
}
