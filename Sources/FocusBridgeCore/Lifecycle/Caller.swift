/// Who sent a call: its bus connection, its Unix user and its sandbox — what ownership of a
/// notification ID is decided by (focus-bridge(1), BEHAVIOUR, "Ownership"), never the `app_name` it claims.
public struct Caller: Hashable, Sendable {
    /// The connection's unique name (`:1.42`).
    public var connection: String
    /// The Unix user behind the connection, as the bus tells (nil when it cannot).
    public var userID: UInt32?
    /// The sandbox the process runs in (`flatpak:org.example.App`, `snap:firefox`); nil outside one.
    public var sandbox: String?
    /// The door it called by: only `fdo` holders are sent the notification's signals.
    public var door: Door

    public init(connection: String, userID: UInt32? = nil, sandbox: String? = nil, door: Door = .fdo) {
        self.connection = connection
        self.userID = userID
        self.sandbox = sandbox
        self.door = door
    }

    /// Whether this caller may close or replace a notification `holder` holds: the same
    /// connection; or the same Unix user in the same sandbox (unsandboxed processes of one user
    /// act on each other's notifications, as they can with the daemon alone; a Flatpak or Snap
    /// app only on its own). Another user never.
    public func mayActFor(_ holder: Caller) -> Bool {
        if connection == holder.connection { return true }
        guard let userID, userID == holder.userID else { return false }
        return sandbox == holder.sandbox
    }

    /// The form the store keeps: `connection uid sandbox`, `-` for what is unknown, and ` gtk`
    /// after them for a caller of the GTK door (rows without it are the fdo door's).
    public var stored: String {
        "\(connection) \(userID.map(String.init) ?? "-") \(sandbox ?? "-")" + (door == .gtk ? " gtk" : "")
    }

    /// Reads `stored`'s form back; nil for anything else (a damaged row is not trusted).
    public init?(stored text: Substring) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3 || (parts.count == 4 && parts[3] == "gtk"),
              parts[0].first == ":" || parts[0].contains(".") else { return nil }
        connection = String(parts[0])
        if parts[1] == "-" { userID = nil } else if let value = UInt32(parts[1]) { userID = value } else { return nil }
        sandbox = parts[2] == "-" ? nil : String(parts[2])
        door = parts.count == 4 ? .gtk : .fdo
    }

    /// Several callers in one text, one per line.
    public static func stored(_ callers: [Caller]) -> String { callers.map(\.stored).joined(separator: "\n") }

    public static func callers(stored text: String) -> [Caller] {
        text.split(separator: "\n").compactMap { Caller(stored: $0) }
    }
}
