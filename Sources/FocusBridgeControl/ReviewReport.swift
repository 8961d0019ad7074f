import FocusBridgeCore
import FocusBridgeTime

/// `focusctl review --json` (focusctl(1), JSON OUTPUT, review): the apps the Time Sensitive
/// review finds due now, and those it asked about in the 7 days before (not asked again).
public struct ReviewReport: Codable, Equatable, Sendable {
    /// One app: its figures for the period, and where its review stands.
    public struct App: Codable, Equatable, Sendable {
        public var app: String
        /// Time-sensitive notifications it sent in the period, each once.
        public var sent: Int
        /// Of those, acted on.
        public var acted: Int
        /// `due` (found now, not delivered: `focusctl review --json`), `waiting` (for the Focus
        /// that would hold it to end, or the next summary) or `delivered`.
        public var state: String
        /// When the review found it due (UTC).
        public var at: String

        public init(_ entry: ReviewMemory.Entry) {
            app = entry.app
            sent = entry.sent
            acted = entry.acted
            state = entry.state.rawValue
            at = Timestamp.string(entry.at)
        }

        public init(_ item: TimeSensitiveReview.Item, at date: Instant) {
            app = item.app
            sent = item.sent
            acted = item.acted
            state = "due"
            at = Timestamp.string(date)
        }
    }

    /// `[general] time-sensitive-review`: `weekly` or `off`.
    public var frequency: String
    /// The period counted: the 7 days before now (UTC).
    public var since: String
    public var until: String
    /// The next weekly review (UTC), null when `off`.
    @Nullable public var next: String?
    /// Whether this call delivered them (`focusctl review`) or only looked (`--json`).
    public var delivered: Bool
    /// The apps due now, busiest first; with `delivered`, as each went.
    public var apps: [App]
    /// The apps reviewed in the 7 days before now, or waiting, oldest first: not asked again.
    public var reviewed: [App]

    public init(frequency: String, since: Instant, until: Instant, next: Instant?, delivered: Bool, apps: [App],
                reviewed: [App]) {
        self.frequency = frequency
        self.since = Timestamp.string(since)
        self.until = Timestamp.string(until)
        self.next = next.map(Timestamp.string)
        self.delivered = delivered
        self.apps = apps
        self.reviewed = reviewed
    }
}
