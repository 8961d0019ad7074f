import Foundation

/// The JSON shapes `focusctl` prints and the control interface returns; keys are stable and
/// documented in focusctl(1).
public enum JSONText {
    /// An ISO 8601 UTC timestamp with milliseconds.
    public static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    public static func parseTimestamp(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    public static func object(_ entry: HistoryEntry) -> [String: Any] {
        [
            "id": Int(entry.id), "app": entry.app, "summary": entry.summary, "body": entry.body,
            "level": entry.level.rawValue, "decision": entry.decision.rawValue,
            "received": timestamp(entry.received),
            "closed": entry.closed.map(timestamp) ?? NSNull(),
            "close-reason": entry.closeReason.map { Int($0) } ?? NSNull(),
        ]
    }

    /// Serialises with sorted keys (stable output for people and tests).
    public static func encode(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value,
                                                     options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]) else {
            return "null"
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// A JSON string literal (for one-line log output).
    public static func quote(_ text: String) -> String { encode(text) }
}
