#if canImport(Glibc)
import Glibc
#endif

/// A point in time as seconds since 1970-01-01 UTC: the one time type of FocusBridge.
///
/// Our own instead of Foundation's `Date`, so that the daemon links no Foundation (its code pages
/// and ICU would be most of the resident memory). It has the small part of `Date`'s API the
/// project uses, under the same names.
public struct Instant: Comparable, Hashable, Sendable {
    public var timeIntervalSince1970: Double

    public init(timeIntervalSince1970 seconds: Double) { timeIntervalSince1970 = seconds }

    /// The wall clock now (`CLOCK_REALTIME`).
    public init() {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        timeIntervalSince1970 = Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }

    public static var now: Instant { Instant() }

    public func addingTimeInterval(_ seconds: Double) -> Instant {
        Instant(timeIntervalSince1970: timeIntervalSince1970 + seconds)
    }

    /// Seconds from `other` to this instant (negative when `other` is later).
    public func timeIntervalSince(_ other: Instant) -> Double {
        timeIntervalSince1970 - other.timeIntervalSince1970
    }

    /// Year 1 and year 4001, as Foundation's `Date` has them.
    public static let distantPast = Instant(timeIntervalSince1970: -62_135_769_600)
    public static let distantFuture = Instant(timeIntervalSince1970: 64_092_211_200)

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.timeIntervalSince1970 < rhs.timeIntervalSince1970 }

    public static func + (lhs: Instant, rhs: Double) -> Instant { lhs.addingTimeInterval(rhs) }
    public static func - (lhs: Instant, rhs: Double) -> Instant { lhs.addingTimeInterval(-rhs) }
    public static func - (lhs: Instant, rhs: Instant) -> Double { lhs.timeIntervalSince(rhs) }
}

/// Coded as Foundation's `Date` codes itself (one number: seconds since 2001-01-01 UTC), so the
/// Focus and share state that earlier versions wrote reads back unchanged.
extension Instant: Codable {
    static let referenceDate = 978_307_200.0

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(timeIntervalSince1970: try container.decode(Double.self) + Self.referenceDate)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(timeIntervalSince1970 - Self.referenceDate)
    }
}
