import FocusBridgeCore
import FocusBridgeSystem

/// Where `auto` looks for the known daemons: each folder of PATH, then the library folders
/// distributions install daemons in (notification-daemon in /usr/lib/notification-daemon/,
/// xfce4-notifyd in /usr/lib/<multiarch>/xfce4/notifyd/). Both lists can be given, so tests and
/// unusual layouts can say where to look.
public struct DaemonSearch: Equatable, Sendable {
    public var path: [String]
    public var libraryFolders: [String]

    public init(path: [String], libraryFolders: [String]) {
        self.path = path
        self.libraryFolders = libraryFolders
    }

    /// Overrides the library folders (colon-separated), documented in focus-bridge(1).
    public static let libraryFoldersVariable = "FOCUS_BRIDGE_DAEMON_LIBRARY_PATH"

    /// PATH from `environment`; the library folders from `FOCUS_BRIDGE_DAEMON_LIBRARY_PATH`, else
    /// every multiarch folder of /usr/lib (x86_64-linux-gnu, aarch64-linux-gnu, …), /usr/lib and
    /// /usr/libexec.
    public static func standard(environment: [String: String]) -> DaemonSearch {
        let path = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":").map(String.init)
        if let folders = environment[libraryFoldersVariable] {
            return DaemonSearch(path: path, libraryFolders: folders.split(separator: ":").map(String.init))
        }
        let multiarch = ((try? Folders.entries(of: "/usr/lib")) ?? [])
            .filter { $0.contains("-linux-") }.sorted().map { "/usr/lib/\($0)" }
        return DaemonSearch(path: path, libraryFolders: multiarch + ["/usr/lib", "/usr/libexec"])
    }

    /// Where `daemon` is installed: the first executable on PATH, else in a library folder.
    public func locate(_ daemon: KnownDaemon) -> String? {
        let candidates = path.map { "\($0)/\(daemon.name)" }
            + libraryFolders.flatMap { folder in daemon.libraryPaths.map { "\(folder)/\($0)" } }
        return candidates.first { candidate in
            FileStatus.isExecutableFile(candidate)
        }
    }

    /// The known daemons installed, in `auto`'s order, each with its path.
    public func installed() -> [(daemon: KnownDaemon, path: String)] {
        KnownDaemon.all.compactMap { daemon in locate(daemon).map { (daemon, $0) } }
    }
}
