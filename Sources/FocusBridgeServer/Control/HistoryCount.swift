import FocusBridgeCore
import FocusBridgeLoop
import FocusBridgeStore

/// History counted per app (`ActivityTally`) for a period, for `Report` and the Time Sensitive
/// review. History may hold a hundred thousand rows (`history-max-mb`), so it is read
/// `sliceRows` at a time, newest first, one slice per idle pass of the main loop: the calls that
/// come meanwhile are answered between slices, and `done` runs after the last one.
enum HistoryCount {
    /// Rows read in one pass of the main loop.
    static let sliceRows = 500

    static func count(_ tally: ActivityTally, in store: Store, done: @escaping (Result<ActivityTally, Error>) -> Void) {
        slice(tally, from: nil, in: store, done: done)
    }

    /// Counts one slice from row `end` down, then the next one when the loop is idle; done once
    /// a slice reaches the oldest row or the start of the period.
    private static func slice(_ tally: ActivityTally, from end: Int64?, in store: Store,
                              done: @escaping (Result<ActivityTally, Error>) -> Void) {
        var tally = tally
        let slice: Store.ActivitySlice
        do { slice = try store.activity(below: end, limit: sliceRows) } catch { return done(.failure(error)) }
        for row in slice.rows { tally.add(row) }
        // Rows are in the order they were received; a slice all from before the period ends it
        // (a row received out of order, after the clock was set back, may be left out).
        let before = slice.rows.allSatisfy { $0.received < tally.since }
        guard let next = slice.next, !before || slice.rows.isEmpty else { return done(.success(tally)) }
        MainLoop.whenIdle { self.slice(tally, from: next, in: store, done: done) }
    }
}
