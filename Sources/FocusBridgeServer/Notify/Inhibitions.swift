import FocusBridgeCore
import FocusBridgeTime

/// Apps asking for quiet through `Inhibit` (Plasma's extension of org.freedesktop.Notifications):
/// each inhibition belongs to the connection that made it, ends on its `UnInhibit` or when that
/// connection leaves the bus, never by another's call. While any is active the built-in Do Not
/// Disturb is on (`FocusEngine`, source `inhibit`). Bounded per connection and in all.
final class Inhibitions {
    static let maxPerConnection = 16
    static let maxInAll = 256

    struct Inhibition: Equatable {
        let cookie: UInt32
        let connection: String
        let desktopEntry: String
        let reason: String
        let since: Instant

        /// How `focusctl status` names it: `org.example.Slides: Presenting`.
        var said: String {
            let who = desktopEntry.isEmpty ? connection : desktopEntry
            return reason.isEmpty ? who : "\(who): \(reason)"
        }
    }

    private(set) var active: [Inhibition] = []
    private var nextCookie: UInt32 = 1
    /// The daemon's cookie for each inhibition passed on to it (plasmashell shows them in its applet).
    var daemonCookies: [UInt32: UInt32] = [:]
    /// Called when `isInhibited` or what is said about it changed.
    var changed: () -> Void = {}
    /// Called with each inhibition that ends (to end it where it was passed on).
    var ended: (Inhibition) -> Void = { _ in }

    var isInhibited: Bool { !active.isEmpty }

    /// What the Focus it turns on says: since the first, naming each (`focusctl status`).
    var summary: (since: Instant, reason: String)? {
        guard let first = active.first else { return nil }
        let names = active.prefix(3).map(\.said).joined(separator: "; ")
        return (first.since, "asked by " + names + (active.count > 3 ? " and \(active.count - 3) more" : ""))
    }

    /// A new inhibition of `connection`; nil when it holds too many already, or all do.
    func inhibit(connection: String, desktopEntry: String, reason: String, at now: Instant) -> UInt32? {
        guard active.count < Self.maxInAll,
              active.lazy.filter({ $0.connection == connection }).count < Self.maxPerConnection else { return nil }
        let cookie = nextCookie
        nextCookie = nextCookie == UInt32.max ? 1 : nextCookie + 1
        active.append(Inhibition(cookie: cookie, connection: connection,
                                 desktopEntry: String(desktopEntry.prefix(255)).escapingControlCharacters,
                                 reason: String(reason.prefix(255)).escapingControlCharacters, since: now))
        changed()
        return cookie
    }

    /// Ends `cookie` when `connection` made it.
    func uninhibit(_ cookie: UInt32, connection: String) {
        end { $0.cookie == cookie && $0.connection == connection }
    }

    private func end(where matches: (Inhibition) -> Bool) {
        let ending = active.filter(matches)
        guard !ending.isEmpty else { return }
        active.removeAll(where: matches)
        for inhibition in ending { ended(inhibition) }
        changed()
    }

    /// `connection` left the bus: its inhibitions end.
    func connectionLeft(_ connection: String) {
        end { $0.connection == connection }
    }
}
