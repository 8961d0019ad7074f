/// How much a notification may interrupt: Apple's four interruption levels.
public enum InterruptionLevel: String, CaseIterable, Codable, Sendable {
    case passive
    case active
    case timeSensitive = "time-sensitive"
    case critical
}
