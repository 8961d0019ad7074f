/// What `GetServerInformation` says: the daemon's name, vendor, version and spec version. The
/// bridge answers with the daemon's own, so apps that adapt to a daemon by its name see the real
/// one, and `dunstctl debug` reports dunst's version, not the bridge's.
public struct ServerInformation: Codable, Equatable, Sendable {
    public var name: String
    public var vendor: String
    public var version: String
    public var specVersion: String

    enum CodingKeys: String, CodingKey {
        case name, vendor, version
        case specVersion = "spec-version"
    }

    public init(name: String, vendor: String, version: String, specVersion: String) {
        self.name = name
        self.vendor = vendor
        self.version = version
        self.specVersion = specVersion
    }

    /// FocusBridge's own: what it says in `log` mode and before it has seen a daemon.
    public static let bridge = ServerInformation(name: "FocusBridge", vendor: "FocusBridge", version: focusBridgeVersion,
                                                 specVersion: "1.2")

    /// A daemon's answer, each field cut to a sane length (it comes from another process).
    public init(reply: [String]) {
        func field(_ index: Int) -> String { index < reply.count ? String(reply[index].prefix(256)) : "" }
        self.init(name: field(0), vendor: field(1), version: field(2), specVersion: field(3))
    }

    /// How many action buttons this daemon shows at most, where it is known to show fewer than
    /// four: GNOME Shell shows three, and would drop the last — which may not be the one the
    /// bridge would give up.
    public var buttonLimit: Int? {
        name.lowercasedCheaply() == "gnome-shell" ? 3 : nil
    }

    /// Whether a click on a notification runs its only action when it has no default one:
    /// dunst's `do_action` does (and opens its menu for two or more), so a quick action added to
    /// a notification with one action or none would change what the click does.
    public var clickRunsSoleAction: Bool {
        name.lowercasedCheaply() == "dunst"
    }

    /// `dunst 1.9.0 (knopwob), spec 1.2`.
    public var line: String {
        "\(name) \(version) (\(vendor)), spec \(specVersion)"
    }
}
