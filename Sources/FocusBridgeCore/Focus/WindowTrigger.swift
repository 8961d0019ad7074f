import FocusBridgeTime

/// The Focus that windows turn on (`while-fullscreen`, `while-focused`; focus-bridge.toml(5)):
/// on as soon as its condition holds, off only after it has not held for `grace`, so that a
/// window switch does not flap the Focus. Pure: the watcher's state and the time come in.
public struct WindowTrigger: Equatable, Sendable {
    /// How long a condition may stop holding before the Focus goes off.
    public static let grace: Double = 5

    public struct On: Equatable, Sendable {
        public var focus: String
        /// "while VLC is fullscreen".
        public var reason: String
        public var since: Instant
    }

    public private(set) var on: On?
    /// When the condition of `on` stopped holding (the Focus stays on until `grace` later).
    public private(set) var lostAt: Instant?

    public init() {}

    /// The first Focus of the file whose condition holds for `state`, with why.
    public static func holding(_ state: WindowState, focuses: [FocusProfile]) -> (focus: String, reason: String)? {
        for focus in focuses {
            if focus.whileFullscreen, let window = state.fullscreen {
                return (focus.name, "while \(window.name) is fullscreen")
            }
            if !focus.whileFocused.isEmpty, let window = state.focused, window.isAny(of: focus.whileFocused) {
                return (focus.name, "while \(window.name) is focused")
            }
        }
        return nil
    }

    /// Takes the watcher's state at `now`; true when the Focus it puts on (or off) changed.
    @discardableResult
    public mutating func update(_ state: WindowState, focuses: [FocusProfile], at now: Instant) -> Bool {
        let before = on?.focus
        if let holding = Self.holding(state, focuses: focuses) {
            if on?.focus != holding.focus { on = On(focus: holding.focus, reason: holding.reason, since: now) }
            on?.reason = holding.reason
            lostAt = nil
        } else if on != nil {
            if lostAt == nil { lostAt = now }
            if let lostAt, now.timeIntervalSince(lostAt) >= Self.grace { on = nil; self.lostAt = nil }
        }
        return on?.focus != before
    }

    /// When the grace of a lost condition ends (evaluate again then).
    public var nextChange: Instant? { lostAt.map { $0.addingTimeInterval(Self.grace) } }
}
