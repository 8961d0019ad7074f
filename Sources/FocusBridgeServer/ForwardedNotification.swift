import FocusBridgeCore
import FocusBridgeDBus

/// A notification on its way to the daemon: the client's arguments with the hints the bridge
/// adds, waiting for the daemon ID it replaces (known only when it is sent).
struct ForwardedNotification {
    let id: UInt32
    let appKey: String
    let level: InterruptionLevel
    let appName: Variant
    let appIcon: Variant
    let summary: Variant
    let body: Variant
    let actions: Variant
    let hints: Variant
    let expireTimeout: Variant

    /// The bytes of its arguments (they share the client's message: this is what waiting costs).
    var weight: Int {
        [appName, appIcon, summary, body, actions, hints, expireTimeout].reduce(0) { $0 + $1.byteCount }
    }

    /// The `Notify` arguments for the daemon, replacing `daemonID` (0 for a new one).
    func arguments(replacing daemonID: UInt32) -> Variant {
        .tuple([appName, .uint32(daemonID), appIcon, summary, body, actions, hints, expireTimeout])
    }
}

/// What the forwarder sends for a notification.
enum ForwardWork {
    case notify(ForwardedNotification)
    case close

    @Sendable static func weight(_ work: ForwardWork) -> Int {
        if case .notify(let notification) = work { notification.weight } else { 0 }
    }

    /// Newer work for the same notification replaces older work that was never sent.
    static func merge(_ old: ForwardWork, _ new: ForwardWork) -> ForwardWork { new }
}
