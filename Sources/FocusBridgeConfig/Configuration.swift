import FocusBridgeCore
import FocusBridgeSystem
import FocusBridgeTOML

/// The user's configuration file, `$XDG_CONFIG_HOME/focus-bridge/config.toml`.
///
/// No file is a valid setup: everything has a default.
public struct Configuration: Equatable, Sendable {
    public var downstream = DownstreamSettings()
    public var policy = PolicySettings()
    /// `[share]`: Focus shared across devices through a synced folder (off by default).
    public var share = ShareSettings()

    public init() {}

    /// The default location, following the XDG base directory rules.
    public static func defaultPath(environment: [String: String] = Environment.all) -> String {
        let base = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? Environment.homeDirectory) + "/.config"
        return base + "/focus-bridge/config.toml"
    }

    /// The largest file read. A real configuration is a few kilobytes; parsing a file of
    /// megabytes would block the bridge's main loop for minutes, so it is refused unread.
    public static let maxFileBytes = 1 << 20

    /// Loads `path`; a missing file gives the defaults, a broken one a `ConfigError`.
    ///
    /// The file is read only when it is a regular file (a link to one is followed), opened
    /// non-blocking and up to `maxFileBytes`: a FIFO or a device put at the path (an editor's
    /// rename of a link, a mistake) is refused at once, never waited on.
    public static func load(path: String) throws(ConfigError) -> Configuration {
        // A file the process cannot even look at (a folder on the way it may not search) is no
        // configuration, as a missing one; one it sees but may not read is a mistake.
        guard FileStatus.exists(path) else { return Configuration() }
        let bytes: [UInt8]
        do { bytes = try FileReading.readRegularFile(path, limit: maxFileBytes) } catch {
            switch error {
            case .system(let error) where error.isMissing: return Configuration()
            case .system(let error):
                throw ConfigError(path: path, line: 1, column: 1, message: "cannot read the file (\(error))")
            case .notRegularFile:
                throw ConfigError(path: path, line: 1, column: 1,
                                  message: "not a regular file (a folder, a FIFO or a device); it is not read")
            case .tooLarge:
                throw ConfigError(path: path, line: 1, column: 1,
                                  message: "the file is larger than 1 MiB (\(maxFileBytes) bytes), the most a configuration may be; is it the right file?")
            }
        }
        return try parse(bytes: bytes, path: path)
    }

    /// Parses TOML text; `path` names it in error messages.
    public static func parse(_ text: String, path: String) throws(ConfigError) -> Configuration {
        try parse(bytes: Array(text.utf8), path: path)
    }

    /// Parses the bytes of a TOML file (bytes that are not UTF-8 are refused with their place).
    public static func parse(bytes: [UInt8], path: String) throws(ConfigError) -> Configuration {
        let root: TOMLTable
        do {
            root = try TOMLParser.parse(bytes: bytes)
        } catch {
            throw ConfigError(path: path, line: error.position.line, column: error.position.column, message: error.message)
        }
        return try TableReader(path: path, root: root).configuration()
    }
}
