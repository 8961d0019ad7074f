import Foundation

/// Monotonic time in seconds, for measuring round trips.
enum Stopwatch {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}

/// Median and 99th percentile of a set of samples (seconds).
struct Distribution: Sendable {
    let samples: [Double]

    var median: Double { percentile(0.5) }
    var p99: Double { percentile(0.99) }

    func percentile(_ fraction: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))
        return sorted[index]
    }

    var json: [String: Any] {
        ["median_ms": median * 1000, "p99_ms": p99 * 1000, "samples": samples.count]
    }
}
