import FocusBridgeDBus
import Foundation

/// A client of the bridge (or of a daemon directly): timed calls, one after another or pipelined.
struct Client {
    let bus: VariantConnection
    let destination: String

    static let path = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"

    static func notifyArguments(app: String, summary: String, hints: Variant = .dictionary([])) -> Variant {
        .tuple([.string(app), .uint32(0), .string(""), .string(summary), .string("benchmark body"), .strings([]), hints, .int32(-1)])
    }

    /// A 64×64 RGBA `image-data` hint.
    static func imageHints() -> Variant {
        let size: Int32 = 64
        let pixels = [UInt8](repeating: 0x7f, count: Int(size * size * 4))
        let image = Variant.tuple([.int32(size), .int32(size), .int32(size * 4), .bool(true), .int32(8), .int32(4),
                                   .array(of: "y", pixels.map(Variant.byte))])
        return .dictionary([("image-data", image)])
    }

    /// `count` calls made one after another; the round trip of each, in seconds.
    func sequential(_ count: Int, method: String, interface: String = Client.interface,
                    arguments: @escaping () -> Variant?, replyType: String?) -> Distribution {
        var samples: [Double] = []
        samples.reserveCapacity(count)
        var remaining = count
        var started = 0.0
        func next() {
            started = Stopwatch.now()
            bus.call(destination, Client.path, interface, method, arguments(), replyType: replyType,
                     timeoutMilliseconds: 30_000) { _ in
                samples.append(Stopwatch.now() - started)
                remaining -= 1
                if remaining > 0 { next() }
            }
        }
        next()
        Harness.wait(timeout: 300) { remaining == 0 }
        return Distribution(samples: samples)
    }

    /// `count` calls sent at once on each connection; seconds until the last answer.
    static func pipelined(_ clients: [Client], count: Int, method: String, arguments: @escaping (Int, Int) -> Variant,
                          replyType: String) -> (seconds: Double, answered: Int) {
        var answered = 0
        var finished = 0
        let start = Stopwatch.now()
        for (index, client) in clients.enumerated() {
            for call in 0..<count {
                client.bus.call(client.destination, path, interface, method, arguments(index, call), replyType: replyType,
                                timeoutMilliseconds: 120_000) { result in
                    finished += 1
                    if case .success = result { answered += 1 }
                }
            }
        }
        let total = clients.count * count
        Harness.wait(timeout: 600) { finished == total }
        return (Stopwatch.now() - start, answered)
    }
}
