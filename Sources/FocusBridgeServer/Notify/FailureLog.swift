import FocusBridgeCore
import Logging

/// The log of operations that may fail many times in a row (state database writes on a full or
/// read-only disk): per operation, one error line when it starts failing and one info line when
/// it works again, with how many attempts failed in between.
final class FailureLog {
    private let logger: Logger
    private var streaks: [String: FailureStreak] = [:]

    init(logger: Logger) { self.logger = logger }

    /// `operation` failed; `line` is logged when this starts a streak.
    func failed(_ operation: String, _ line: @autoclosure () -> String) {
        guard streaks[operation, default: FailureStreak()].failed() else { return }
        logger.error("\(line()) (said once until it works again)")
    }

    /// `operation` worked: ends its streak, saying so once.
    func succeeded(_ operation: String) {
        // Nothing failing (nearly always): no look-up, which hashes the name (every commit says four).
        guard !streaks.isEmpty, streaks[operation] != nil, let count = streaks[operation]?.succeeded() else { return }
        streaks[operation] = nil
        logger.info("\(operation) works again, after \(Count.of(count, "failed attempt"))")
    }
}
