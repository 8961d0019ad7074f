/// A number with its noun, as people write it: `1 notification`, `2 notifications` (never
/// `notification(s)`).
public enum Count {
    /// `plural`: the noun's plural when it is not the noun with an `s`.
    public static func of(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) \(count == 1 ? noun : plural ?? noun + "s")"
    }
}
