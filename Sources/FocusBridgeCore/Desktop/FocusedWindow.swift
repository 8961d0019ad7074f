/// The window the person is looking at, as the compositor or window manager tells it
/// (focus-bridge(1), THE WINDOW IN FRONT): its names (Wayland app_id, X11 WM_CLASS instance and
/// class, GTK application ID), its process when known, and whether it is fullscreen.
public struct FocusedWindow: Equatable, Sendable {
    /// Every name the window goes by, most specific first; none empty.
    public var names: [String]
    public var processID: UInt32?
    public var fullscreen: Bool

    public init(names: [String], processID: UInt32? = nil, fullscreen: Bool = false) {
        var seen: Set<String> = []
        self.names = names.filter { !$0.isEmpty && seen.insert(Self.normalised($0)).inserted }.map { String($0.prefix(256)) }
        self.processID = processID
        self.fullscreen = fullscreen
    }

    /// The name shown by `focusctl status` and in the trace.
    public var name: String { names.first ?? processID.map { "process \($0)" } ?? "a window with no name" }

    /// Whether this window is the app `key`: one of its names is the key (case-insensitive,
    /// `.desktop` suffix ignored), or else the notification's sender is the window's process.
    public func isApp(_ key: String, senderProcessID: UInt32? = nil) -> Bool {
        let wanted = Self.normalised(key)
        if names.contains(where: { Self.normalised($0) == wanted }) { return true }
        if let processID, let senderProcessID, processID == senderProcessID { return true }
        return false
    }

    /// Whether any of `keys` names this window (for `while-focused`).
    public func isAny(of keys: [String]) -> Bool { keys.contains { isApp($0) } }

    static func normalised(_ name: String) -> String {
        let lowered = name.lowercased()
        return lowered.hasSuffix(".desktop") ? String(lowered.dropLast(8)) : lowered
    }
}

/// What the window watcher knows: the focused window (nil: none, or not known), and a
/// fullscreen window on screen when it is not the focused one (a video on another output).
public struct WindowState: Equatable, Sendable {
    public var focused: FocusedWindow?
    public var fullscreen: FocusedWindow?

    public init(focused: FocusedWindow? = nil, fullscreen: FocusedWindow? = nil) {
        self.focused = focused
        self.fullscreen = fullscreen ?? (focused?.fullscreen == true ? focused : nil)
    }
}

/// Whether a notification from the focused app is shown (`when-focused`).
public enum WhenFocused: String, CaseIterable, Sendable {
    case hide, show
}
