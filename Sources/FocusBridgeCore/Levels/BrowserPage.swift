/// A web page's notification, sent by a browser of the Chromium family (Chromium, Google Chrome,
/// Brave, Microsoft Edge): which senders are such browsers, and the site a notification of theirs
/// names. These browsers send every page's notification under their own name and put the page's
/// site first in the body — `HOST` followed by a blank line, or `<a href="ORIGIN/">HOST</a>`
/// when the daemon advertises `body-hyperlinks` — or in the hint `x-kde-origin-name` when the
/// daemon advertises that. Firefox names no site: its notifications stay Firefox's.
///
/// The reading is strict, so that no other text is taken for a site: only a sender known to be
/// such a browser, only the first line, and only a line that is a host name or address with an
/// optional port, within `maxLineBytes`.
public enum BrowserPage {
    /// The app keys of the Chromium-family browsers, lowercased: their desktop entries (what
    /// they send as `desktop-entry`), their Flatpak IDs and Snap names (the key of a sandboxed
    /// one), and their app names (the key when no `desktop-entry` comes).
    static let browsers: Set<String> = [
        "chromium", "chromium-browser", "org.chromium.chromium",
        "google-chrome", "google-chrome-beta", "google-chrome-unstable", "com.google.chrome", "google chrome",
        "brave-browser", "brave-browser-beta", "brave-browser-nightly", "com.brave.browser", "brave",
        "microsoft-edge", "microsoft-edge-beta", "microsoft-edge-dev", "com.microsoft.edge", "microsoft edge",
    ]

    /// The first letters of `browsers`, lowercase.
    private static let firstBytes: [UInt8] = Array("bcgmo".utf8)

    /// The hint a browser names the site in when the daemon advertises the capability of that name.
    public static let originHint = "x-kde-origin-name"

    /// The longest first line read as a site: a link to an origin of the longest host name with
    /// a port, and its text.
    static let maxLineBytes = 600
    /// The longest `HOST:PORT`: a host name of 253 bytes, or a bracketed IPv6 address, and a port.
    static let maxSiteBytes = 260

    /// Whether `key` (an app key) is a Chromium-family browser's.
    public static func isBrowser(_ key: String) -> Bool {
        // Asked on every `Notify`: most keys are longer or shorter than any browser's, or begin
        // with another letter, and are not lowercased and hashed for nothing.
        let bytes = key.utf8.count
        guard bytes >= 5 && bytes <= 22, let first = key.utf8.first, Self.firstBytes.contains(first | 0x20) else { return false }
        return browsers.contains(key.lowercasedCheaply())
    }

    /// The site a browser's notification names — `HOST` or `HOST:PORT`, the port only when it is
    /// not the scheme's default — or nil when it names none.
    public static func site(of notification: NotificationRequest) -> String? {
        if let origin = notification.hints[originHint]?.string { return site(shown: Substring(origin)) }
        let body = notification.body
        let utf8 = body.utf8
        let head = utf8.prefix(maxLineBytes + 2)
        let end = head.firstIndex(of: UInt8(ascii: "\n")) ?? head.endIndex
        // The site's line is the whole body, or is followed by a blank line.
        if end != utf8.endIndex {
            let next = utf8.index(after: end)
            guard next != utf8.endIndex, utf8[next] == UInt8(ascii: "\n") else { return nil }
        }
        guard utf8.distance(from: utf8.startIndex, to: end) <= maxLineBytes else { return nil }
        let line = body[..<end]
        return line.hasPrefix("<a href=\"") ? site(link: line) : site(shown: line)
    }

    /// `<a href="SCHEME://HOST[:PORT]/">TEXT</a>`: the origin's host and port (the text may be
    /// the registrable domain alone, or the host in Unicode).
    private static func site(link line: Substring) -> String? {
        var rest = line.dropFirst("<a href=\"".count)
        let scheme: String
        if rest.hasPrefix("https://") { scheme = "https" } else if rest.hasPrefix("http://") { scheme = "http" } else { return nil }
        rest = rest.dropFirst(scheme.count + 3)
        guard let slash = rest.firstIndex(of: "/"), rest[slash...].hasPrefix("/\">") else { return nil }
        let authority = rest[..<slash]
        let text = rest[rest.index(slash, offsetBy: 3)...]
        guard text.hasSuffix("</a>") else { return nil }
        let shown = text.dropLast("</a>".count)
        guard !shown.isEmpty, !shown.contains("<"), var site = hostPort(authority) else { return nil }
        let defaultPort = scheme == "https" ? ":443" : ":80"
        if site.hasSuffix(defaultPort) { site.removeLast(defaultPort.count) }
        return site
    }

    /// A site as the browser shows it: `HOST` or `HOST:PORT`.
    private static func site(shown text: Substring) -> String? { hostPort(text) }

    /// `text` when it is `HOST` or `HOST:PORT` as a browser writes an origin's: a lowercase host
    /// name (labels of 1 to 63 letters, digits and inner dashes; letters beyond ASCII for a
    /// Unicode name), an IPv4 address or a bracketed IPv6 address, and a port of 1 to 65535. A
    /// name of one label is `localhost` or has a port; a name's last label is not a number.
    static func hostPort(_ text: Substring) -> String? {
        guard !text.isEmpty, text.utf8.count <= maxSiteBytes else { return nil }
        var host = text
        var port: Substring?
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = text[...close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { return nil }
                port = after.dropFirst()
            }
            guard isIPv6(host.dropFirst().dropLast()) else { return nil }
        } else {
            if let colon = text.lastIndex(of: ":") {
                host = text[..<colon]
                port = text[text.index(after: colon)...]
            }
            guard isHostName(host, hasPort: port != nil) else { return nil }
        }
        if let port {
            guard (1...5).contains(port.count), port.first != "0", port.allSatisfy(\.isASCIIDigit),
                  let number = Int(port), number <= 65535 else { return nil }
        }
        return String(text)
    }

    private static func isIPv6(_ text: Substring) -> Bool {
        (2...45).contains(text.count) && text.contains(":")
            && text.allSatisfy { $0.isASCIIDigit || ("a"..."f").contains($0) || $0 == ":" || $0 == "." }
    }

    private static func isHostName(_ host: Substring, hasPort: Bool) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard (1...63).contains(label.count), label.first != "-", label.last != "-",
                  label.allSatisfy({ $0.isASCIILowercaseOrDigit || $0 == "-" || (!$0.isASCII && ($0.isLetter || $0.isNumber)) })
            else { return false }
        }
        if labels.count == 1 { return hasPort || host == "localhost" }
        guard let last = labels.last, last.allSatisfy(\.isASCIIDigit) else { return true }
        // Numbers throughout: an IPv4 address.
        return labels.count == 4 && labels.allSatisfy { $0.count <= 3 && $0.allSatisfy(\.isASCIIDigit) && Int($0)! <= 255 }
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && ("0"..."9").contains(self) }
    var isASCIILowercaseOrDigit: Bool { isASCII && (("a"..."z").contains(self) || ("0"..."9").contains(self)) }
}
