import FocusBridgeTime

/// The apps muted for a while (`focusctl mute`, the "Mute 1 Hour" quick action): their
/// notifications are recorded as `muted` and never shown, until the mute ends on time
/// (focusctl(1), MUTE). Keyed by app key without regard to case; bounded.
public struct MuteList: Equatable, Sendable {
    public struct Mute: Equatable, Sendable {
        public var app: String
        public var until: Instant

        public init(app: String, until: Instant) {
            self.app = app
            self.until = until
        }
    }

    /// The most mutes kept at once; past it the one ending first gives way.
    public static let maxMutes = 1000
    /// The longest a mute may last: a week.
    public static let longest: Double = 7 * 86_400

    private var mutes: [String: Mute] = [:]

    public init(_ mutes: [Mute] = []) {
        for mute in mutes { self.mutes[mute.app.lowercased()] = mute }
    }

    /// The mutes still on at `now`, ending first first.
    public func active(at now: Instant) -> [Mute] {
        mutes.values.filter { $0.until > now }.sorted { ($0.until, $0.app) < ($1.until, $1.app) }
    }

    public func mutedUntil(_ app: String, at now: Instant) -> Instant? {
        guard !mutes.isEmpty, let mute = mutes[app.lowercasedCheaply()], mute.until > now else { return nil }
        return mute.until
    }

    public mutating func mute(_ app: String, until: Instant) {
        if mutes[app.lowercased()] == nil, mutes.count >= Self.maxMutes,
           let first = mutes.min(by: { $0.value.until < $1.value.until }) {
            mutes[first.key] = nil
        }
        mutes[app.lowercased()] = Mute(app: app, until: until)
    }

    /// Ends a mute; returns it when there was one.
    @discardableResult
    public mutating func unmute(_ app: String) -> Mute? { mutes.removeValue(forKey: app.lowercased()) }

    /// Forgets the mutes over at `now`; returns them.
    public mutating func expire(at now: Instant) -> [Mute] {
        let over = mutes.values.filter { $0.until <= now }
        for mute in over { mutes[mute.app.lowercased()] = nil }
        return over.sorted { $0.app < $1.app }
    }

    /// When the next mute ends, for the wall-clock timer.
    public var nextEnd: Instant? { mutes.values.map(\.until).min() }
}
