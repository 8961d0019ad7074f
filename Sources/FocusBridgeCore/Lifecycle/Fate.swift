import FocusBridgeTime
#if canImport(Glibc)
import Glibc
#endif

/// One thing that became of a notification after its decision, as history keeps it: sent out in
/// a digest, replayed, shown again, delivered while the daemon held everything back. The end of
/// its life is the history row's close (reason 1 expired, 2 dismissed, 3 closed by the app, 4
/// undefined), kept beside the steps: every ID ends once.
public struct FateStep: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A held notification went out in digest `number`.
        case inDigest = "in-digest"
        /// A held notification went out as itself; `detail`: what replayed it (Show All,
        /// focusctl show, the Focus ending).
        case replayed
        /// A past notification was shown again, as the bridge's copy `number` (focusctl show).
        case shownAgain = "shown-again"
        /// This notification is the bridge's copy of past notification `number`.
        case copyOf = "copy-of"
        /// It was given to a daemon whose own Do Not Disturb was on; `detail`: which (dunst paused).
        case daemonQuiet = "daemon-quiet"
        /// Kept quiet by a mute of its app or thread: room left, nothing records it yet.
        case muted
        /// The person snoozed it: off the screen, its app not told; `detail`: until when, in
        /// seconds since 1970.
        case snoozed
        /// Its snooze ended: shown again as itself; `detail`: what held it instead (a Focus on
        /// then, the summary).
        case unsnoozed = "shown-after-snooze"
        /// No daemon showed it: in log mode (asked for, or fallen back to when no daemon could
        /// start) it was only printed in focus-bridge's log.
        case logged
    }

    /// The kind as stored; a kind this version does not know (from a newer one) is kept and shown
    /// as it is written.
    public var kind: String
    public var at: Instant
    public var number: UInt32?
    public var detail: String?

    public init(_ kind: Kind, at: Instant, number: UInt32? = nil, detail: String? = nil) {
        self.init(kind: kind.rawValue, at: at, number: number, detail: detail)
    }

    public init(kind: String, at: Instant, number: UInt32? = nil, detail: String? = nil) {
        self.kind = KeptText.cut(kind, maxBytes: 32)
        self.at = at
        self.number = number
        self.detail = detail.map { KeptText.cut($0, maxBytes: Fate.maxDetailBytes) }
    }
}

/// The fate of a notification: its decision, what became of it after, and its end, in one line
/// (`held-focus → in digest 12 at 18:02 → replayed by Show All → dismissed`). The daemon writes
/// the steps; history and `focusctl history` read them.
public enum Fate {
    /// The most steps a history row keeps: the first ones and the newest (a notification shown
    /// again a thousand times does not grow its row).
    public static let maxSteps = 8
    public static let maxDetailBytes = 64

    /// `steps` with `step` added, at most `maxSteps`: when full, the newest replaces the last.
    public static func appending(_ step: FateStep, to steps: [FateStep]) -> [FateStep] {
        var steps = steps
        if steps.count >= maxSteps { steps.removeLast(steps.count - maxSteps + 1) }
        steps.append(step)
        return steps
    }

    // MARK: Stored form

    /// One line per step, `kind TAB seconds TAB number TAB detail` (tabs and line breaks in the
    /// detail become spaces): cheap to write on the path of a Notify, read leniently.
    public static func encode(_ steps: [FateStep]) -> String {
        steps.map { step in
            let detail = (step.detail ?? "").map { $0 == "\t" || $0 == "\n" || $0 == "\r" ? " " : $0 }
            let seconds = step.at.timeIntervalSince1970.isFinite ? step.at.timeIntervalSince1970 : 0
            return "\(step.kind)\t\(seconds)\t\(step.number.map(String.init) ?? "")\t\(String(detail))"
        }.joined(separator: "\n")
    }

    /// The steps of a stored text; a line that cannot be read is left out.
    public static func decode(_ text: String?) -> [FateStep] {
        guard let text, !text.isEmpty else { return [] }
        let steps = text.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line -> FateStep? in
            let fields = line.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4, !fields[0].isEmpty, let seconds = Double(fields[1]), seconds.isFinite else { return nil }
            return FateStep(kind: fields[0], at: Instant(timeIntervalSince1970: seconds), number: UInt32(fields[2]),
                            detail: fields[3].isEmpty ? nil : fields[3])
        }
        return Array(steps.prefix(maxSteps))
    }

    // MARK: In words

    /// What a close reason means for a notification's fate.
    /// The app key of the bridge's own notifications (digests, "N more", copies shown again).
    public static let ownApp = "FocusBridge"

    /// What a close reason means for a notification's fate; `own`: one of the bridge's own, which
    /// the bridge closes itself (a digest once acted on).
    public static func end(_ reason: UInt32, own: Bool = false) -> String {
        switch CloseReason(rawValue: reason) {
        case .expired: "expired"
        case .dismissed: "dismissed"
        case .closedByCall: own ? "closed by focus-bridge" : "closed by the app"
        case .undefined: "closed (undefined: the daemon went away or the bridge gave it up)"
        default: "closed (reason \(reason))"
        }
    }

    /// One step in words; `time` writes a moment (the daemon and focusctl use local time).
    public static func words(_ step: FateStep, time: (Instant) -> String) -> String {
        let number = step.number.map(String.init) ?? "?"
        switch FateStep.Kind(rawValue: step.kind) {
        case .inDigest: return "in digest \(number) at \(time(step.at))"
        case .replayed: return "replayed" + (step.detail.map { " by \($0)" } ?? "")
        case .shownAgain: return "shown again as \(number)"
        case .copyOf: return "copy of \(number)"
        case .daemonQuiet: return "(\(step.detail ?? "the daemon's Do Not Disturb was on"))"
        case .muted: return "muted" + (step.detail.map { " (\($0))" } ?? "")
        case .logged: return "(only logged)"
        case .snoozed:
            let until = step.detail.flatMap(Double.init).map { time(Instant(timeIntervalSince1970: $0)) }
            return "snoozed" + (until.map { " until \($0)" } ?? "")
        case .unsnoozed: return step.detail ?? "shown again"
        case nil: return step.kind + (step.detail.map { " (\($0))" } ?? "")
        }
    }

    /// The whole fate in one line: the decision, each step (a daemon-quiet step qualifies the
    /// one before it: `delivered (dunst paused)`; so does a logged one, and a decision to
    /// deliver that only the log printed is `logged`, never `delivered`), and the end when there
    /// was one, in the order they happened (`closed`: when it ended; a copy shown after the end
    /// comes after it).
    public static func line(decision: DeliveryOutcome, steps: [FateStep], closeReason: UInt32?, closed: Instant? = nil,
                            own: Bool = false, time: (Instant) -> String) -> String {
        var parts = [decision.rawValue]
        var ended = decision == .dropped || closeReason == nil
        for step in steps {
            if !ended, let closed, let closeReason, step.at > closed {
                parts.append(end(closeReason, own: own))
                ended = true
            }
            let text = words(step, time: time)
            if step.kind == FateStep.Kind.logged.rawValue && parts.count == 1 && decision == .delivered {
                parts[0] = "logged"
            } else if step.kind == FateStep.Kind.daemonQuiet.rawValue || step.kind == FateStep.Kind.logged.rawValue {
                parts[parts.count - 1] += " " + text
            } else {
                parts.append(text)
            }
        }
        // A dropped notification is told it was dismissed as it is handed out: no step of its own.
        if !ended, let closeReason { parts.append(end(closeReason, own: own)) }
        return parts.joined(separator: " → ")
    }

    /// `HH:MM` in the process's time zone (the daemon's answer; focusctl writes its own).
    public static func localTime(_ date: Instant) -> String {
        guard let parts = localParts(date) else { return "?" }
        return String.zeroPadded(Int(parts.tm_hour), width: 2) + ":" + String.zeroPadded(Int(parts.tm_min), width: 2)
    }

    /// A time for a sentence people read (a trace, a message), in the process's time zone as
    /// everything else they read: `17:30` on the day of `now`, `Tue 09:00` within a week of it,
    /// else `2026-12-01 09:00`.
    public static func localTime(_ date: Instant, now: Instant) -> String {
        guard let parts = localParts(date), let today = localParts(now) else { return "?" }
        let clock = localTime(date)
        let days = Int((date.timeIntervalSince1970 - now.timeIntervalSince1970) / 86_400)
        if parts.tm_year == today.tm_year && parts.tm_yday == today.tm_yday { return clock }
        if abs(days) < 6 {
            let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
            return names[Int(parts.tm_wday) % 7] + " " + clock
        }
        return localDateTime(date)
    }

    /// `2026-12-01 09:00` in the process's time zone: a moment of the past in a sentence.
    public static func localDateTime(_ date: Instant) -> String {
        guard let parts = localParts(date) else { return "?" }
        return String.zeroPadded(Int(parts.tm_year) + 1900, width: 4) + "-" + String.zeroPadded(Int(parts.tm_mon) + 1, width: 2)
            + "-" + String.zeroPadded(Int(parts.tm_mday), width: 2) + " " + localTime(date)
    }

    /// The local calendar fields of `date`; nil for a time no calendar can say (a stored time is
    /// not trusted: it is written as "?", never trapped on).
    private static func localParts(_ date: Instant) -> tm? {
        let raw = date.timeIntervalSince1970
        guard raw.isFinite, abs(raw) < 253_402_300_800 else { return nil }
        var seconds = time_t(raw)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return parts
    }
}
