import FocusBridgeCore
import Logging

/// The Time Sensitive review's notifications (focus-bridge(1), BEHAVIOUR): one of the bridge's
/// own per app found due, with Keep and Turn Off answered as the first question's
/// (`Bridge.answer`). While a Focus is on that would hold the bridge's own notification, a review
/// waits (remembered in the store) and goes out when that Focus ends or with the next scheduled
/// summary, whichever comes first.
extension Bridge {
    /// Carries out what a review found (`TimeSensitiveReview.due`): each app's notification goes
    /// out now, or waits. Returns what was noted, in the order given; an app reviewed meanwhile
    /// (by another count that ended first) is left out.
    @discardableResult
    func review(_ items: [TimeSensitiveReview.Item]) -> [ReviewMemory.Entry] {
        let now = clock.now
        let waits = focusHoldsOwn
        var noted: [ReviewMemory.Entry] = []
        for item in items where !preferences.reviews.wasReviewed(item.app, before: now) {
            let entry = ReviewMemory.Entry(app: item.app, at: now, sent: item.sent, acted: item.acted,
                                           state: waits ? .waiting : .delivered)
            if waits {
                logger.info("Time Sensitive review of \(item.app.escapingControlCharacters): waits for \(activeFocus?.name.escapingControlCharacters ?? "the Focus") to end or the next summary")
            } else {
                sendReview(entry)
            }
            preferences.noteReview(entry)
            noted.append(entry)
        }
        return noted
    }

    /// Delivers the reviews that waited: once no Focus would hold them (a Focus ended, the
    /// bridge started), or with the scheduled summary (`withSummary`), whatever Focus is on.
    /// A review of an app whose Time Sensitive was turned off meanwhile is not sent.
    func deliverWaitingReviews(withSummary: Bool = false) {
        let waiting = preferences.reviews.waiting
        guard !waiting.isEmpty, withSummary || !focusHoldsOwn else { return }
        let context = policyContext()
        for var entry in waiting {
            entry.state = .delivered
            if context.rule(forApp: entry.app).rule.timeSensitive {
                sendReview(entry)
            } else {
                logger.info("Time Sensitive review of \(entry.app.escapingControlCharacters): not sent, its Time Sensitive is off now")
            }
            preferences.noteReview(entry)
        }
    }

    /// The review's notification about `entry.app`, answered as the first question is.
    private func sendReview(_ entry: ReviewMemory.Entry) {
        let id = newID()
        let app = entry.app
        logger.info("Time Sensitive review of \(app.escapingControlCharacters): \(entry.sent) sent, \(entry.acted) acted on; asked as notification \(id)")
        preferences.asking(id, about: app)
        let period = Int(TimeSensitiveReview.periodSeconds / 86_400)
        sendOwn(id, title: "Time Sensitive review: \(app)",
                body: "\(app) sent \(Count.of(entry.sent, "Time Sensitive notification")) in the last \(period) days; "
                    + "you acted on \(entry.acted). They break through a Focus and the scheduled summary. Keep them, "
                    + "or turn them off: \(app)'s notifications then arrive as ordinary ones.",
                actions: [Self.keepKey, "Keep", Self.turnOffKey, "Turn Off"])
    }
}
