import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeLoop
import FocusBridgeStore
import FocusBridgeTime

/// `Report` on the control interface (focusctl(1), REPORT): the history of the last days
/// counted per app (`ActivityTally`), with the suggestions its figures make. History may hold a
/// hundred thousand rows (`history-max-mb`), so it is read `sliceRows` at a time, newest first,
/// one slice per idle pass of the main loop: the calls that come meanwhile are answered between
/// slices, and the answer follows the last one.
extension ControlInterface {
    /// Rows read in one pass of the main loop.
    static let sliceRows = 500
    /// Reports counted at once; one more is refused until one of them is answered.
    static let maxReports = 4

    /// Starts counting for `call` (`days`: 0 for the default); refuses a bad number of days.
    func report(_ call: MethodCall, days asked: UInt32) throws {
        let kept = max(bridge.settings.general.historyDays, 1)
        guard asked <= kept else {
            throw Refused("history keeps \(kept) day\(kept == 1 ? "" : "s") (history-days); "
                          + "a report covers 1 to \(kept), not \(asked)")
        }
        guard reports < Self.maxReports else {
            throw Refused("focus-bridge is counting \(Self.maxReports) reports already; ask again once one is answered")
        }
        let days = asked == 0 ? min(ActivityReport.defaultDays, kept) : Int(asked)
        let now = bridge.clock.now
        let tally = ActivityTally(since: now.addingTimeInterval(-Double(days) * 86_400), until: now,
                                  timeZone: focus.timeZone)
        reports += 1
        count(tally, days: days, from: nil, for: call)
    }

    /// Counts one slice from row `end` down, then the next one when the loop is idle; answers
    /// once a slice reaches the oldest row or the start of the period.
    private func count(_ tally: ActivityTally, days: Int, from end: Int64?, for call: MethodCall) {
        var tally = tally
        let slice: Store.ActivitySlice
        do {
            slice = try store.activity(below: end, limit: Self.sliceRows)
        } catch {
            reports -= 1
            return call.fail(DBusError(name: DBusError.failed, message: "cannot read history: \(error)"))
        }
        for row in slice.rows { tally.add(row) }
        // Rows are in the order they were received; a slice all from before the period ends it
        // (a row received out of order, after the clock was set back, may be left out).
        let before = slice.rows.allSatisfy { $0.received < tally.since }
        guard let next = slice.next, !before || slice.rows.isEmpty else {
            reports -= 1
            return call.reply(.tuple([.string(JSONText.encode(answer(tally, days: days)))]))
        }
        MainLoop.whenIdle { [weak self] in
            guard let self else { return }
            count(tally, days: days, from: next, for: call)
        }
    }

    private func answer(_ tally: ActivityTally, days: Int) -> ActivityReport {
        let context = bridge.policyContext()
        let mutes = bridge.preferences.mutes
        let suggestions = Activity.suggestions(for: tally.ordered, days: days,
                                               summaryScheduled: !bridge.settings.summaryTimes.isEmpty) { app in
            Activity.Current(rule: context.rule(forApp: app).rule, muted: mutes.mutedUntil(app, at: context.now) != nil)
        }
        return ActivityReport(tally, days: days, timeZone: focus.timeZone.identifier, suggestions: suggestions)
    }
}
