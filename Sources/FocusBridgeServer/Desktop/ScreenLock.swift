import FocusBridgeDBus

/// Follows the screen-lock state from `org.freedesktop.ScreenSaver` (`GetActive` at start,
/// `ActiveChanged` after), for `previews = "when-unlocked"`. No screen saver on the bus means
/// unlocked.
enum ScreenLock {
    static let name = "org.freedesktop.ScreenSaver"

    static func follow(on bus: VariantConnection, _ changed: @escaping (Bool) -> Void) {
        bus.subscribe(interface: name, member: "ActiveChanged") { signal in
            if let locked = signal.parameters.child(0).bool { changed(locked) }
        }
        bus.call(name, "/org/freedesktop/ScreenSaver", name, "GetActive", replyType: "(b)",
                 timeoutMilliseconds: 5_000) { result in
            if case .success(let reply) = result, let locked = reply.child(0).bool { changed(locked) }
        }
    }
}
