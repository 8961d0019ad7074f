import FocusBridgeTime

/// How long history is kept (`history-days`), and when to prune it: at start, then about daily,
/// without a wake-up of its own where it can be helped — a prune is done whenever the bridge
/// wakes anyway (a schedule boundary, a summary, a reload) once half a day has passed, and the
/// bridge's one timer is armed for it only when nothing else woke it for a whole day.
public struct HistoryRetention: Equatable, Sendable {
    /// A prune is due this long after the last one, when something wakes the bridge anyway.
    public static let minimumGap: Double = 12 * 3600
    /// And at the latest this long after it: the timer is armed for it.
    public static let maximumGap: Double = 24 * 3600

    public let days: Int

    public init(days: Int) { self.days = days }

    /// Rows received before this are forgotten (`days` is clamped so the date stays sane).
    public func cutoff(at now: Instant) -> Instant {
        now.addingTimeInterval(-Double(min(max(days, 1), 1_000_000)) * 86_400)
    }

    /// Whether to prune at `now`, the last prune having run at `last` (nil: not yet in this run).
    /// A clock set back past the last prune counts as due: better one prune too many than none
    /// for a day and more.
    public func isDue(at now: Instant, lastPruned last: Instant?) -> Bool {
        guard let last else { return true }
        return now.timeIntervalSince(last) >= Self.minimumGap || now < last
    }

    /// When the timer must wake the bridge to prune at the latest.
    public func deadline(after last: Instant) -> Instant { last.addingTimeInterval(Self.maximumGap) }
}

/// How much disk the history may take (`history-max-mb`), and how the store keeps it there: the
/// oldest rows are forgotten, a bounded batch at a time, once the database's pages in use pass
/// three quarters of the bound; the rest of the bound is room for the WAL file and for what is
/// written between two looks. Freed pages are reused by the rows that follow, so the file stops
/// growing near `trimAbove`; a file far larger than the bound (an older release's, or a bound
/// lowered) is compacted once at a quiet moment (`needsCompacting`).
public struct HistorySize: Equatable, Sendable {
    public static let mebibyte = 1 << 20
    /// About the most a history row takes on disk, kept as `KeptText` and `KeptRequest` cut it
    /// (app 256 B, summary 1 KiB, body 4 KiB, the kept request up to about 8 KiB): the looks and
    /// batches are sized with it, so what they write stays a small part of the bound.
    public static let maxRowBytes = 16 << 10

    /// The bound, in bytes.
    public let maxBytes: Int

    public init(maxBytes: Int) { self.maxBytes = max(maxBytes, 1) }

    /// `history-max-mb` (MiB; clamped so the bytes stay sane).
    public init(megabytes: Int) { self.init(maxBytes: min(max(megabytes, 1), 1 << 30) * Self.mebibyte) }

    /// The history is trimmed while the database's pages in use are more than this.
    public var trimAbove: Int { maxBytes / 4 * 3 }

    /// The WAL file is cut back to this size once checkpointed (`PRAGMA journal_size_limit`).
    public var walLimit: Int { maxBytes / 8 }

    /// Rows written between two looks at the size: what they add is at most a sixteenth of the
    /// bound (128 rows for the default 64 MiB, at most 2 MiB).
    public var checkEveryRows: Int { min(128, max(1, maxBytes / 16 / Self.maxRowBytes)) }

    /// Rows forgotten in one pass (one transaction), and as many more as were written since the
    /// last pass, at most four batches (`Store.trimHistory`): bounded work, so a `Notify` behind
    /// it waits a few milliseconds at most; the next pass follows when the loop is idle.
    public var batchRows: Int { min(64, max(8, maxBytes / 16 / Self.maxRowBytes)) }

    /// Whether the file must be rewritten (VACUUM) to come back within the bound: it and the
    /// WAL's room are over it, and at least a quarter of it is free pages that only a rewrite
    /// gives back.
    public func needsCompacting(fileBytes: Int, freeBytes: Int) -> Bool {
        fileBytes + walLimit > maxBytes && freeBytes * 4 >= fileBytes
    }
}
