import FocusBridgeDBus

/// Follows whether the screen is locked, for `previews = "when-unlocked"` and `while-locked`,
/// from the two sources that may say so: the screen saver that owns `org.freedesktop.ScreenSaver`
/// on the session bus (`GetActive` from each new owner, then its `ActiveChanged`), and logind's
/// `LockedHint` of the session on the system bus (read, then its `PropertiesChanged`). Either
/// saying locked is locked. A signal is taken only from the connection that owns the source's
/// name now, checked per signal: any other connection may send `ActiveChanged`, and none of them
/// changes what the person sees. No screen saver and no logind mean unlocked.
final class ScreenLock {
    static let name = "org.freedesktop.ScreenSaver"
    static let path = "/org/freedesktop/ScreenSaver"
    static let logind = "org.freedesktop.login1"
    static let logindSession = "org.freedesktop.login1.Session"

    private let session: VariantConnection
    private var system: VariantConnection?
    private let changed: (Bool) -> Void
    /// The unique name that owns `org.freedesktop.ScreenSaver` now, and what it says.
    private var saverOwner: String?
    private var saverLocked = false
    /// The unique name that owns `org.freedesktop.login1` on the system bus, and the session's hint.
    private var logindOwner: String?
    private var hintLocked = false
    /// What was said last: the bridge starts unlocked.
    private var said = false

    init(session: VariantConnection, system: VariantConnection?, _ changed: @escaping (Bool) -> Void) {
        self.session = session
        self.system = system
        self.changed = changed
    }

    /// Starts following both sources (`system`: nil where there is no system bus, as in containers).
    static func follow(on session: VariantConnection, system: VariantConnection?,
                       _ changed: @escaping (Bool) -> Void) -> ScreenLock {
        let lock = ScreenLock(session: session, system: system, changed)
        lock.start()
        return lock
    }

    private func start() {
        session.subscribe(interface: Self.name, member: "ActiveChanged") { [weak self] signal in
            guard let self, let owner = saverOwner, signal.sender == owner,
                  let locked = signal.parameters.child(0).bool else { return }
            saverLocked = locked
            tell()
        }
        session.watchName(Self.name) { [weak self] owner in
            guard let self, owner != saverOwner else { return }
            saverOwner = owner
            guard let owner else {
                // No screen saver: nothing says locked.
                saverLocked = false
                return tell()
            }
            // A new owner: what was said stands until it answers (a screen saver replaced while
            // the screen is locked must not unlock it for a moment). Asked of the owner itself,
            // so an answer from one gone meanwhile is not taken; one that cannot answer is no lock.
            session.call(owner, Self.path, Self.name, "GetActive", replyType: "(b)", timeoutMilliseconds: 5_000) {
                [weak self] result in
                guard let self, saverOwner == owner else { return }
                if case .success(let reply) = result, let locked = reply.child(0).bool { saverLocked = locked } else { saverLocked = false }
                tell()
            }
        }
        followLogind()
    }

    /// logind's `LockedHint` of this user's session (`GetSession("auto")`: the caller's session,
    /// or the user's display session for a service outside one).
    private func followLogind() {
        guard let system else { return }
        system.watchName(Self.logind) { [weak self] owner in self?.logindOwner = owner }
        system.call(Self.logind, "/org/freedesktop/login1", "org.freedesktop.login1.Manager", "GetSession",
                    .tuple([.string("auto")]), replyType: "(o)", timeoutMilliseconds: 5_000) { [weak self] result in
            guard let self, case .success(let reply) = result, let path = reply.child(0).string else { return }
            system.subscribe(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: path,
                             arg0: Self.logindSession) { [weak self] signal in
                guard let self, let owner = logindOwner, signal.sender == owner else { return }
                for (key, value) in signal.parameters.child(1).dictionaryEntries where key == "LockedHint" {
                    if let locked = value.unboxed.bool { hintLocked = locked; tell() }
                }
            }
            system.call(Self.logind, path, "org.freedesktop.DBus.Properties", "Get",
                        .tuple([.string(Self.logindSession), .string("LockedHint")]), replyType: "(v)",
                        timeoutMilliseconds: 5_000) { [weak self] result in
                guard let self, case .success(let reply) = result, let locked = reply.child(0).unboxed.bool else { return }
                hintLocked = locked
                tell()
            }
        }
    }

    private func tell() {
        let locked = saverLocked || hintLocked
        guard locked != said else { return }
        said = locked
        changed(locked)
    }
}
