import FocusBridgeConfig
import FocusBridgeDBus
import Foundation

/// Which downstream to use, and why: `auto` resolved against the session and the installed daemons.
public struct DownstreamPlan: Equatable, Sendable {
    public enum Target: Equatable, Sendable {
        case spawn(command: [String])
        case name(String)
        case address(String, name: String)
        case log
    }

    public let target: Target
    public let reason: String

    public var mode: String {
        switch target {
        case .spawn: "spawn"
        case .name: "name"
        case .address: "address"
        case .log: "log"
        }
    }

    /// Standalone daemons `auto` looks for, in order of preference.
    static let standaloneDaemons = ["dunst", "mako", "swaync", "xfce4-notifyd"]

    public static func resolve(_ settings: DownstreamSettings, environment: [String: String],
                               nameOwner: (String) -> String?) throws -> DownstreamPlan {
        switch settings.mode {
        case .log:
            return DownstreamPlan(target: .log, reason: "log mode was asked for")
        case .name:
            let name = settings.name ?? "org.gnome.Shell"
            return DownstreamPlan(target: .name(name), reason: "name mode was asked for")
        case .address:
            guard let address = settings.address else {
                throw PlanError("address mode needs an address (`[downstream] address` or --downstream-address)")
            }
            return DownstreamPlan(target: .address(address, name: settings.name ?? "org.freedesktop.Notifications"),
                                  reason: "address mode was asked for")
        case .spawn:
            if !settings.command.isEmpty {
                return DownstreamPlan(target: .spawn(command: settings.command), reason: "spawn mode was asked for")
            }
            guard let daemon = firstInstalledDaemon(environment: environment) else {
                throw PlanError("spawn mode needs a daemon command, and none of \(standaloneDaemons.joined(separator: ", ")) is installed")
            }
            return DownstreamPlan(target: .spawn(command: [daemon]), reason: "spawn mode, with the first installed daemon")
        case .auto:
            let desktop = environment["XDG_CURRENT_DESKTOP"] ?? ""
            if desktop.uppercased().split(separator: ":").contains("GNOME"), nameOwner("org.gnome.Shell") != nil {
                return DownstreamPlan(target: .name("org.gnome.Shell"), reason: "a GNOME session with GNOME Shell on the bus")
            }
            if !settings.command.isEmpty {
                return DownstreamPlan(target: .spawn(command: settings.command), reason: "the configured daemon command")
            }
            if let daemon = firstInstalledDaemon(environment: environment) {
                return DownstreamPlan(target: .spawn(command: [daemon]), reason: "\(daemon) is installed")
            }
            return DownstreamPlan(target: .log, reason: "no GNOME Shell and none of \(standaloneDaemons.joined(separator: ", ")) is installed")
        }
    }

    /// The path of the first standalone daemon installed (xfce4-notifyd lives outside PATH).
    static func firstInstalledDaemon(environment: [String: String]) -> String? {
        let path = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        for daemon in standaloneDaemons {
            var candidates = path.map { "\($0)/\(daemon)" }
            if daemon == "xfce4-notifyd" {
                candidates += ["/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd", "/usr/lib/xfce4/notifyd/xfce4-notifyd",
                               "/usr/libexec/xfce4/notifyd/xfce4-notifyd"]
            }
            if let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
                return found
            }
        }
        return nil
    }
}

public struct PlanError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension DownstreamPlan {
    /// The daemon command, bus name or address in words.
    public var targetDescription: String {
        switch target {
        case .spawn(let command): command.joined(separator: " ")
        case .name(let name): name
        case .address(let address, let name): "\(name) at \(address)"
        case .log: "standard output"
        }
    }
}
