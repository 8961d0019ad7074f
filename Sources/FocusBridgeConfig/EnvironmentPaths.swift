#if canImport(Glibc)
import Glibc
#endif

/// Where FocusBridge's files live, from the environment (`XDG_CONFIG_HOME`, `XDG_STATE_HOME`,
/// `HOME`), read as the bytes they are: a value that is not UTF-8 would otherwise be repaired
/// silently into another path, and an unset `HOME` would put the state under "/". Either is
/// refused with one sentence that says what to set.
public enum EnvironmentPaths {
    public struct Unusable: Error, CustomStringConvertible {
        public let description: String
    }

    /// `$XDG_CONFIG_HOME/focus-bridge/config.toml`, default `~/.config/focus-bridge/config.toml`.
    public static func configFile() throws(Unusable) -> String {
        try base("XDG_CONFIG_HOME", home: ".config", instead: "--config") + "/focus-bridge/config.toml"
    }

    /// `$XDG_STATE_HOME/focus-bridge`, default `~/.local/state/focus-bridge`.
    public static func stateFolder() throws(Unusable) -> String {
        try base("XDG_STATE_HOME", home: ".local/state", instead: "--state-dir") + "/focus-bridge"
    }

    /// The XDG variable when set to an absolute path (the XDG spec ignores relative ones), else
    /// `$HOME/home`.
    static func base(_ name: String, home: String, instead option: String) throws(Unusable) -> String {
        if let value = try variable(name, instead: option), value.hasPrefix("/") { return value }
        guard let homeFolder = try variable("HOME", instead: option) else {
            throw Unusable(description: "HOME is not set (and \(name) is not either), so there is no folder for "
                + "focus-bridge's files: set HOME (or \(name)), or give \(option)")
        }
        return homeFolder + "/" + home
    }

    /// The variable's value when set and not empty; a value that is not UTF-8 is refused.
    static func variable(_ name: String, instead option: String) throws(Unusable) -> String? {
        guard let raw = getenv(name), raw.pointee != 0 else { return nil }
        guard let text = String(validatingCString: raw) else {
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self),
                                            count: strlen(raw))
            let shown = bytes.map { $0 >= 0x20 && $0 < 0x7f ? String(UnicodeScalar($0)) : escaped($0) }.joined()
            throw Unusable(description: "\(name) is not valid UTF-8 (\"\(shown)\"); focus-bridge needs UTF-8 paths: "
                + "set \(name) to one, or give \(option)")
        }
        return text
    }

    /// `\xHH`, lowercase hex (as `%02x`).
    static func escaped(_ byte: UInt8) -> String {
        let hex = Array("0123456789abcdef")
        return "\\x" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xf)])
    }
}
