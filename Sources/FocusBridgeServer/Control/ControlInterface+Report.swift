import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeStore
import FocusBridgeTime

/// `Report` on the control interface (focusctl(1), REPORT): the history of the last days
/// counted per app (`HistoryCount`, a slice per idle pass of the main loop), with the
/// suggestions its figures make; the answer follows the last slice.
extension ControlInterface {
    /// Reports counted at once; one more is refused until one of them is answered.
    static let maxReports = 4

    /// Starts counting for `call` (`days`: 0 for the default); refuses a bad number of days.
    func report(_ call: VariantCall, days asked: UInt32) throws {
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
        HistoryCount.count(tally, in: store) { [weak self] result in
            guard let self else { return }
            reports -= 1
            switch result {
            case .failure(let error):
                call.fail(DBusError(name: DBusError.failed, message: "cannot read history: \(error)"))
            case .success(let tally):
                call.reply(.tuple([.string(JSONText.encode(answer(tally, days: days)))]))
            }
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
