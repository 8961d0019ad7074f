extension String {
    /// Without the white space (and line ends) at either end: the Unicode White_Space scalars,
    /// the same set as Foundation's `.whitespacesAndNewlines`.
    public func trimmingWhitespace() -> String {
        var scalars = Substring(self).unicodeScalars
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        return String(Substring(scalars))
    }
}
