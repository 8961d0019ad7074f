import FocusBridgeCore
import FocusBridgeDBus

/// The daemon's own Do Not Disturb — dunst paused, mako's `do-not-disturb` mode, swaync's DND —
/// read through the daemon's own interface, so `focusctl status` can say why nothing appears
/// although the bridge delivered it. Read when the daemon connects, after each call its tools
/// make through the bridge, and on its own signals; never polled.
struct DaemonQuiet: Equatable {
    /// Whether the daemon holds its notifications back now.
    var on: Bool
    /// What says so, as the daemon's tool calls it (`dunst paused`).
    var how: String

    /// One way of asking a daemon; the first that answers tells.
    private struct Probe {
        var name: String?   // nil: the daemon's own name
        var path: String
        var interface: String
        var method: String
        var arguments: Variant?
        var replyType: String
        var how: String
        var read: (Variant) -> Bool?
    }

    /// Made when asked (Variants are not shareable between threads; this is rare).
    private static var probes: [Probe] {
        [
        Probe(name: nil, path: NotificationsInterface.path, interface: "org.freedesktop.DBus.Properties", method: "Get",
              arguments: .tuple([.string("org.dunstproject.cmd0"), .string("paused")]), replyType: "(v)",
              how: "dunst paused (dunstctl set-paused)", read: { $0.child(0).unboxed.bool }),
        Probe(name: "org.erikreider.swaync.cc", path: "/org/erikreider/swaync/cc", interface: "org.erikreider.swaync.cc",
              method: "GetDnd", arguments: nil, replyType: "(b)",
              how: "swaync's Do Not Disturb (swaync-client -d)", read: { $0.child(0).bool }),
        Probe(name: nil, path: "/fr/emersion/Mako", interface: "fr.emersion.Mako", method: "ListModes", arguments: nil,
              replyType: "(as)", how: "mako's do-not-disturb mode (makoctl mode)",
              read: { $0.child(0).strings.map { $0.contains("do-not-disturb") } }),
        ]
    }

    /// Asks the daemon at `daemonName` on `connection`; nil when none of the known ways answers.
    static func read(on connection: VariantConnection, daemonName: String, _ done: @escaping (DaemonQuiet?) -> Void) {
        ask(probes[...], connection: connection, daemonName: daemonName, done)
    }

    private static func ask(_ probes: ArraySlice<Probe>, connection: VariantConnection, daemonName: String,
                            _ done: @escaping (DaemonQuiet?) -> Void) {
        guard let probe = probes.first else { return done(nil) }
        connection.call(probe.name ?? daemonName, probe.path, probe.interface, probe.method, probe.arguments,
                        replyType: probe.replyType, timeoutMilliseconds: 2_000) { result in
            if case .success(let reply) = result, let on = probe.read(reply) {
                return done(DaemonQuiet(on: on, how: probe.how))
            }
            ask(probes.dropFirst(), connection: connection, daemonName: daemonName, done)
        }
    }
}
