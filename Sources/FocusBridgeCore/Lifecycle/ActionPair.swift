/// One action of a notification: the key sent back in `ActionInvoked`, and the label shown.
public struct ActionPair: Equatable, Sendable {
    public var key: String
    public var label: String

    public init(key: String, label: String) {
        self.key = key
        self.label = label
    }

    /// Reads the flat `actions` array (key, label, key, label, …) as pairs. An odd-length array
    /// loses its trailing element rather than failing the whole call.
    public static func pairs(from flat: [String]) -> [ActionPair] {
        stride(from: 0, to: flat.count - 1, by: 2).map { ActionPair(key: flat[$0], label: flat[$0 + 1]) }
    }

    /// The flat form again.
    public static func flatten(_ pairs: [ActionPair]) -> [String] {
        // Not `flatMap`: it makes an array per pair and grows the result (this runs per `Notify`).
        var flat: [String] = []
        flat.reserveCapacity(pairs.count * 2)
        for pair in pairs {
            flat.append(pair.key)
            flat.append(pair.label)
        }
        return flat
    }
}
