import FocusBridgeTime

/// What the bridge does with one `Notify`, decided without I/O (focus-bridge(1), BEHAVIOUR): from
/// the decoded notification, the caller and the live state, one complete plan — the ID it gets,
/// who holds that ID, the one step it takes (held, dropped, collapsed or forwarded), the history
/// row, the held item and how it is shown. `Bridge.execute` carries it out; no door, store or
/// daemon is reached from here.
public struct Intake: Equatable, Sendable {
    public enum ID: Equatable, Sendable {
        /// A new ID.
        case new
        /// The ID of the notification it replaces or repeats.
        case existing(UInt32)
    }

    public enum Step: Equatable, Sendable {
        /// Kept durably until the Focus ends or the summary is due; answered once stored.
        case hold(HeldNotification.Reason)
        /// Its life ends as its ID is handed out (`delivery = "off"`); `endsAtOnce`: its holders
        /// are told it closed (dismissed) — not when it replaced one still on screen.
        case drop(endsAtOnce: Bool)
        /// Over its app's rate limit: counted in the app's "N more from App" notification.
        case collapse
        /// To the daemon; `counts`: toward its app's rate limit.
        case forward(counts: Bool)
    }

    public var decision: Decision
    public var id: ID
    /// The ID the caller is answered with: `id`'s, or a new one.
    public var number: UInt32
    /// Every connection holding the ID, oldest first (each gets its signals and its one close).
    public var holders: [Caller]
    /// It replaces a held notification, which is held no longer (the step says what it becomes).
    public var replacesHeld: Bool
    /// It was to be held but weighs more than a held one may: forwarded now instead.
    public var tooHeavyToHold: Bool
    public var step: Step
    /// Its row in history, written before the caller hears the ID.
    public var history: HistoryEntry
    /// What is held, for `.hold`.
    public var held: HeldNotification?

    /// How it is shown when it is forwarded.
    public var shown: Shown { decision.shown }

    /// Why its holders are told it closed as its ID is handed out (`.drop(endsAtOnce: true)`):
    /// from the app in front it expired (the person saw it in the app), else it was dismissed.
    public var dropReason: CloseReason { decision.outcome == .foreground ? .expired : .dismissed }

    /// - Parameters:
    ///   - focusName: the name of the Focus that is on (what it holds is held for that name).
    ///   - table: the notifications shown or collapsed now.
    ///   - held: the holders of a notification held now (not one sent out in a digest).
    ///   - snoozed: until when a held notification is snoozed (nil: it is not).
    ///   - newID: hands out a new ID, asked only when the notification gets one.
    public static func take(_ notification: NotificationRequest, app: AppIdentity, caller: Caller, payloadBytes: Int,
                            context: PolicyContext, focusName: String?, table: NotificationTable,
                            held: (UInt32) -> [Caller]?, snoozed: (UInt32) -> Instant? = { _ in nil },
                            newID: () -> UInt32) -> Intake {
        var decision = Policy.decide(notification, app: app, context: context)
        let replacing = notification.replacesID
        // One ownership rule for what is shown and what is held: `Caller.mayActFor`.
        let replacesShown = table.owned(replacing, by: caller) != nil
        let heldHolders = replacing == 0 ? nil : held(replacing).flatMap { $0.contains(where: caller.mayActFor) ? $0 : nil }
        let isHeld = decision.outcome == .heldFocus || decision.outcome == .heldSummary
        if replacesShown && isHeld {
            // An update of something already on screen stays on screen.
            decision.outcome = .delivered
            decision.trace.append("delivery: delivered after all (it replaces notification \(replacing), already shown)")
        }
        var tooHeavy = false
        if decision.outcome == .heldFocus || decision.outcome == .heldSummary,
           !HeldNotification.mayHold(payloadBytes: payloadBytes) {
            decision.outcome = .delivered
            tooHeavy = true
        }
        if decision.outcome == .coalesced, let original = decision.replaces, table.owned(original, by: caller) == nil {
            // The same text from someone who may not act on the original is a notification of its own.
            decision.outcome = .delivered
            decision.replaces = nil
            decision.trace.append("delivery: delivered after all (notification \(original) is not this sender's to replace)")
        }

        // Whoever held the ID before keeps holding it.
        var holders = [caller]
        let id: ID
        if let original = decision.replaces, table.contains(original) {
            id = .existing(original)
        } else if replacesShown {
            id = .existing(replacing)
        } else if let heldHolders {
            id = .existing(replacing)
            holders = heldHolders.filter { $0.connection != caller.connection } + [caller]
        } else {
            id = .new
        }

        var step: Step
        switch decision.outcome {
        case .heldSummary: step = .hold(.summary)
        case .heldFocus: step = .hold(.focus(focusName ?? ""))
        case .dropped, .muted, .foreground: step = .drop(endsAtOnce: !replacesShown)
        case .collapsed: step = .collapse
        case .delivered, .coalesced: step = .forward(counts: replacing == 0 && decision.outcome != .coalesced)
        }
        var steps: [FateStep] = []
        if heldHolders != nil, let until = snoozed(replacing), !tooHeavy, isHeldStep(step) || isForwardStep(step) {
            // The person asked not to see it until then: an update from its app waits with it.
            step = .hold(.snooze(until: until))
            steps.append(FateStep(.snoozed, at: context.now, detail: String(until.timeIntervalSince1970)))
            decision.trace.append("delivery: kept snoozed (it replaces notification \(replacing), snoozed by the person)")
        }
        // A held one replaced goes out as its replacement, or is held again in its place.
        let replacesHeld = heldHolders != nil && step != .collapse && !isHeldStep(step)
        let number = switch id { case .new: newID(); case .existing(let existing): existing }
        let history = HistoryEntry(id: number, app: app.key, summary: notification.summary, body: notification.body,
                                   level: decision.level, decision: decision.outcome, received: context.now, steps: steps,
                                   kept: KeptRequest(notification, decision: decision, context: context, focusName: focusName),
                                   via: app.via)
        var item: HeldNotification?
        if case .hold(let reason) = step {
            item = HeldNotification(id: number, reason: reason, app: app.key, summary: notification.summary,
                                    body: notification.body, level: decision.level,
                                    relevance: HeldNotification.relevance(of: notification), received: context.now,
                                    holders: holders, processID: context.senderProcessID)
        }
        return Intake(decision: decision, id: id, number: number, holders: holders, replacesHeld: replacesHeld,
                      tooHeavyToHold: tooHeavy, step: step, history: history, held: item)
    }

    private static func isHeldStep(_ step: Step) -> Bool { if case .hold = step { true } else { false } }
    private static func isForwardStep(_ step: Step) -> Bool { if case .forward = step { true } else { false } }
}
