/// The time, injected so that decisions can be tested at any moment.
public protocol Clock: Sendable {
    var now: Instant { get }
}

/// The real wall clock.
public struct SystemClock: Clock {
    public init() {}
    public var now: Instant { Instant() }
}
