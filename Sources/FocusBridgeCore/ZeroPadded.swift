extension String {
    /// `value` in decimal with zeros in front to `width` digits (`7` → `07`); what
    /// `String(format: "%02d")` did, without Foundation. A negative value keeps its sign in front.
    static func zeroPadded(_ value: Int, width: Int) -> String {
        let digits = String(value.magnitude)
        let padding = String(repeating: "0", count: Swift.max(0, width - digits.count))
        return (value < 0 ? "-" : "") + padding + digits
    }
}
