import FocusBridgeCore
import FocusBridgeTime

/// History as `focusctl report` counts it (`ActivityTally`): a slice of rows at a time, newest
/// first, so that counting a long history leaves room for the calls that come meanwhile.
extension Store {
    /// A slice of history for `ActivityTally`.
    public struct ActivitySlice: Sendable {
        /// Newest first.
        public var rows: [ActivityRow]
        /// Where the next slice starts (`activity(below:limit:)`); nil when this one reached the oldest row.
        public var next: Int64?
    }

    /// At most `limit` history rows older than row `end` (nil: from the newest), newest first,
    /// with only what the report counts. A row whose values cannot be used is left out, as
    /// `history` leaves it out.
    public func activity(below end: Int64?, limit: Int) throws -> ActivitySlice {
        var lowest: Int64?
        var read = 0
        let rows = try database.statement("""
            SELECT row, id, app, level, decision, received, close_reason, acted IS NOT NULL, fate FROM history
            WHERE row < ? ORDER BY row DESC LIMIT ?
            """).rows([end ?? Int64.max, limit]) { row -> ActivityRow? in
            read += 1
            lowest = row.int64(0) ?? lowest
            guard let id = row.int64(1).flatMap(UInt32.init(exactly:)),
                  let received = row.double(5), received.isFinite else { return nil }
            // Steps are written for few rows (held ones, copies): decoded only where there are some.
            let replayed = row.string(8).map { Fate.decode($0).contains { $0.kind == FateStep.Kind.replayed.rawValue } } ?? false
            return ActivityRow(id: id, app: row.string(2) ?? "",
                               level: row.string(3).flatMap(InterruptionLevel.init(rawValue:)) ?? .active,
                               decision: row.string(4).flatMap(DeliveryOutcome.init(rawValue:)) ?? .delivered,
                               received: Instant(timeIntervalSince1970: received),
                               closeReason: row.int64(6).flatMap(UInt32.init(exactly:)),
                               acted: (row.int64(7) ?? 0) != 0, replayed: replayed)
        }
        // A short slice is the last one; an unreadable row still moves the start on.
        return ActivitySlice(rows: rows, next: read < limit ? nil : lowest)
    }
}
