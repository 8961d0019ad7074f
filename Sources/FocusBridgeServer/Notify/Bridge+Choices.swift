import FocusBridgeCore
import FocusBridgeDBus
import Logging

/// Choices made where the notification is (focus-bridge(1), CHOICES): the quick actions on a
/// notification, and the question the bridge asks the first time an app's notification is
/// Time Sensitive — once per app, ever, and never while a Focus would hold the question. The
/// weekly review (`Bridge+Review.swift`) asks again the same way, answered here.
extension Bridge {
    static let keepKey = "keep"
    static let turnOffKey = "turn-off"

    /// The person chose a quick action on notification `entry`: it is done, the notification
    /// closes as dismissed (but a snoozed one, which stays alive), and the app never hears the key.
    func quickAction(_ action: QuickAction, on entry: NotificationTable.Entry) {
        switch action {
        case .snoozeHour:
            return snoozeHour(entry)
        case .muteHour:
            preferences.mute(entry.appKey, until: clock.now.addingTimeInterval(3600))
        case .turnOffTimeSensitive:
            preferences.set(.timeSensitive(false), for: entry.appKey)
        }
        closeOnDaemon(entry.id)
        notificationClosed(entry.id, reason: .dismissed)
    }

    /// After a notification went out: the first Time Sensitive one of an app gets the question.
    func askAboutTimeSensitive(after decision: Decision) {
        let app = decision.app.key
        guard settings.general.explainTimeSensitive, decision.level == .timeSensitive, decision.outcome == .delivered,
              app != Self.ownAppName, preferences.choices.wasAsked(app) == nil,
              !policyContext().rule(forApp: app).rule.critical else { return }
        if focusHoldsOwn {
            logger.info("\(app.escapingControlCharacters) sent its first Time Sensitive notification; the question waits for the Focus to end")
            preferences.noteAsked(app, answer: "pending")
        } else {
            ask(app)
        }
    }

    /// Asks the questions, and sends the Time Sensitive reviews, that waited for a Focus to end.
    func askPendingQuestions() {
        guard !focusHoldsOwn else { return }
        for app in preferences.choices.pendingQuestions { ask(app) }
        deliverWaitingReviews()
    }

    /// Whether the Focus that is on would hold the bridge's own notification.
    var focusHoldsOwn: Bool {
        OwnNotification.held(by: activeFocus.flatMap { settings.focus(named: $0.name) })
    }

    private func ask(_ app: String) {
        let id = newID()
        preferences.noteAsked(app, answer: "asked")
        preferences.asking(id, about: app)
        sendOwn(id, title: "Time Sensitive notifications from \(app)",
                body: "They break through a Focus and the scheduled summary. Keep them, or turn them off: "
                    + "\(app)'s notifications then arrive as ordinary ones.",
                actions: [Self.keepKey, "Keep", Self.turnOffKey, "Turn Off"])
    }

    /// The person answered the question about `app`.
    func answer(_ id: UInt32, app: String, key: String) {
        switch key {
        case Self.turnOffKey:
            preferences.set(.timeSensitive(false), for: app)
            preferences.noteAsked(app, answer: "turn-off")
        case Self.keepKey:
            preferences.noteAsked(app, answer: "keep")
        default:
            break
        }
        closeOnDaemon(id)
    }
}
