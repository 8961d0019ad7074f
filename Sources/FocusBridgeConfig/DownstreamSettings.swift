import FocusBridgeCore

/// Where delivered notifications go: the `[downstream]` table.
public struct DownstreamSettings: Equatable, Sendable {
    public enum Mode: String, CaseIterable, Sendable {
        case auto, spawn, name, address, log
    }

    public var mode: Mode = .auto
    /// The daemon to run on the private bus in `spawn` mode.
    public var command: [String] = []
    /// The bus name to forward to in `name` and `address` modes.
    public var name: String?
    /// The bus address in `address` mode.
    public var address: String?
    /// Further bus names the bridge owns and passes through to the daemon (spawn and address).
    public var passthroughNames: [String] = []
    /// Session-bus services the bridge makes visible on the private bus (spawn mode): the
    /// daemon's calls to them are relayed to the session bus, their signals back.
    public var sessionNames: [String] = SessionNames.defaults

    public init() {}
}
