import FocusBridgeJSON

/// What history keeps of a notification besides its app, summary, body, level and decision, so
/// `focusctl explain ID` can tell how it was received and decide it again now, and `focusctl
/// show ID` can show a past one again: the request's fields as the decision read them, the
/// state the decision was made in, and its trace. Bounded (`maxHintBytes`, `maxTraceLines`, …):
/// images, sounds and other binary hints are not kept, long values are cut.
public struct KeptRequest: Codable, Equatable, Sendable {
    public static let maxHints = 24
    /// All kept hints together, as `TYPE:NAME:VALUE` texts.
    public static let maxHintBytes = 2048
    public static let maxHintValueBytes = 256
    public static let maxListItems = 8
    public static let maxActions = 8
    public static let maxActionBytes = 64
    public static let maxTraceLines = 16
    public static let maxTraceLineBytes = 256

    /// `app_name` as sent (the app key, its source: the row's `app` and `appSource`).
    public var appName: String
    public var appSource: String
    public var appIcon: String
    /// `KEY=LABEL` items, as `focusctl explain --action` takes them.
    public var actions: [String]
    /// `TYPE:NAME:VALUE` items, as `focusctl explain --hint` takes them.
    public var hints: [String]
    public var replacesID: UInt32
    public var expireTimeout: Int32
    /// The Focus that was on, silent mode and the screen lock when it was decided.
    public var focus: String?
    public var silent: Bool
    public var screenLocked: Bool
    /// The decision's trace then.
    public var trace: [String]
    /// The door it came in by; nil for the fdo door (and rows from before doors were kept).
    public var door: Door?

    enum CodingKeys: String, CodingKey {
        case actions, hints, focus, silent, trace, door
        case appName = "app-name"
        case appSource = "app-source"
        case appIcon = "app-icon"
        case replacesID = "replaces-id"
        case expireTimeout = "expire-timeout"
        case screenLocked = "screen-locked"
    }

    public init(appName: String, appSource: String, appIcon: String = "", actions: [String] = [], hints: [String] = [],
                replacesID: UInt32 = 0, expireTimeout: Int32 = -1, focus: String? = nil, silent: Bool = false,
                screenLocked: Bool = false, trace: [String] = []) {
        self.appName = KeptText.appKey(appName)
        self.appSource = KeptText.cut(appSource, maxBytes: 64)
        self.appIcon = KeptText.cut(appIcon, maxBytes: Self.maxHintValueBytes)
        self.actions = Array(actions.prefix(Self.maxActions)).map { KeptText.cut($0, maxBytes: Self.maxActionBytes * 2 + 1) }
        self.hints = Self.bounded(hints)
        self.replacesID = replacesID
        self.expireTimeout = expireTimeout
        self.focus = focus.map(KeptText.appKey)
        self.silent = silent
        self.screenLocked = screenLocked
        // Most traces are within both bounds: kept as they are, no array made and no line looked at twice.
        if trace.count <= Self.maxTraceLines && !trace.contains(where: { $0.utf8.count > Self.maxTraceLineBytes }) {
            self.trace = trace
        } else {
            self.trace = trace.prefix(Self.maxTraceLines).map { KeptText.cut($0, maxBytes: Self.maxTraceLineBytes) }
        }
    }

    /// What to keep of `notification`, decided as `decision` says in `context`.
    /// Borrowing: an initialiser takes its arguments owned, so the caller would copy the whole
    /// context and decision for it (on every `Notify`) to read a few fields.
    public init(_ notification: borrowing NotificationRequest, decision: borrowing Decision,
                context: borrowing PolicyContext, focusName: String?) {
        let actions = notification.actionPairs.prefix(Self.maxActions).map {
            KeptText.cut($0.key, maxBytes: Self.maxActionBytes) + "=" + KeptText.cut($0.label, maxBytes: Self.maxActionBytes)
        }
        self.init(appName: notification.appName, appSource: decision.app.source.rawValue, appIcon: notification.appIcon,
                  actions: actions, hints: Self.hintTexts(notification.hints), replacesID: notification.replacesID,
                  expireTimeout: notification.expireTimeout, focus: context.activeFocus.map { _ in focusName ?? "" },
                  silent: context.silent, screenLocked: context.screenLocked, trace: decision.trace)
        if notification.door != .fdo { door = notification.door }
    }

    /// The hints a decision reads (levels, delivery, actions, the app): kept first, so others
    /// cannot crowd them out of the bound.
    static let decisive: Set<String> = ["urgency", "category", "desktop-entry", "transient", "value", "resident",
                                        "x-dunst-stack-tag", "x-canonical-private-synchronous", "synchronous",
                                        "private-synchronous", "sender-pid", "suppress-sound", "action-icons",
                                        ActionNormaliser.destructiveHint]

    /// The hints as `TYPE:NAME:VALUE` texts, those a decision reads first, then by name, within
    /// the bounds; binary ones (images, sound data) and names `focusctl explain --hint` cannot
    /// take are left out.
    public static func hintTexts(_ hints: [String: HintValue]) -> [String] {
        var texts: [String] = []
        texts.reserveCapacity(hints.count)
        // Whether a name goes first, looked up once per name rather than once per comparison.
        let names = hints.count < 2 ? Array(hints.keys) : hints.keys.map { name in
            (name: name, first: decisive.contains(name) || name.hasPrefix("x-focus-"))
        }.sorted { a, b in a.first != b.first ? a.first : a.name < b.name }.map(\.name)
        for name in names where !name.contains(":") && !name.isEmpty && name.utf8.count <= 64 {
            let value: String
            switch hints[name]! {
            case .string(let text): value = "string:" + name + ":" + KeptText.cut(text, maxBytes: maxHintValueBytes)
            case .integer(let number): value = (name == "urgency" ? "byte:" : "int:") + name + ":" + String(number)
            case .bool(let flag): value = "boolean:" + name + (flag ? ":true" : ":false")
            case .double(let number): value = "double:\(name):\(number)"
            case .strings(let items):
                value = "strings:\(name):" + KeptText.cut(items.prefix(maxListItems).filter { !$0.contains(",") }
                    .joined(separator: ","), maxBytes: maxHintValueBytes)
            case .other: continue
            }
            texts.append(value)
        }
        return bounded(texts)
    }

    private static func bounded(_ texts: [String]) -> [String] {
        var kept: [String] = []
        var bytes = 0
        for text in texts.prefix(maxHints) {
            let text = KeptText.cut(text, maxBytes: maxHintValueBytes + 80)
            guard bytes + text.utf8.count <= maxHintBytes else { break }
            bytes += text.utf8.count
            kept.append(text)
        }
        return kept
    }

    /// The notification as it was received, as far as it was kept (`summary` and `body` are
    /// the history row's); a kept item that cannot be read again is left out.
    public func notification(summary: String, body: String) -> NotificationRequest {
        var decoded: [String: HintValue] = [:]
        for item in hints {
            if let pair = try? HintValue.parse(item) { decoded[pair.0] = pair.1 }
        }
        var flat: [String] = []
        for action in actions {
            guard let equals = action.firstIndex(of: "=") else { continue }
            flat += [String(action[..<equals]), String(action[action.index(after: equals)...])]
        }
        var request = NotificationRequest(appName: appName, replacesID: replacesID, appIcon: appIcon, summary: summary,
                                          body: body, actions: flat, hints: decoded, expireTimeout: expireTimeout)
        request.door = door ?? .fdo
        return request
    }

    /// The app as the decision named it; `via`: the browser of a web page's (history's `via`).
    public func app(key: String, via: String? = nil) -> AppIdentity {
        let source = AppIdentity.Source(rawValue: appSource) ?? .appName
        if source == .site { return AppIdentity(key: key, source: .site, via: via) }
        return AppIdentity(key: key, source: source, name: source == .flatpak || source == .snap ? nil : appName)
    }

    /// One hint's value, when kept (`category`, `urgency`…).
    public func hint(_ name: String) -> String? {
        for item in hints {
            let parts = item.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            if parts.count == 3 && parts[1] == name { return String(parts[2]) }
        }
        return nil
    }

    /// The stored form: the JSON `Codable` reads, written by hand (it is written on the path of
    /// every `Notify`, where `JSONEncoder` would cost several times the decision itself). Texts
    /// are copied a buffer at a time and numbers written in place: no per-text allocation.
    public var stored: String? { String(decoding: storedUTF8, as: UTF8.self) }

    /// `stored` as its UTF-8 bytes, which the store binds as they are (no String made and
    /// checked again). Always valid UTF-8 without a NUL: every text comes from a `String` and
    /// control characters are escaped.
    public var storedUTF8: [UInt8] {
        var out: [UInt8] = []
        // Room for every text with its quotes and comma, and a few escapes: grown only by many.
        out.reserveCapacity(Self.frameBytes + appName.utf8.count + appSource.utf8.count + appIcon.utf8.count
                            + (focus?.utf8.count ?? 0) + Self.listBytes(actions) + Self.listBytes(hints)
                            + Self.listBytes(trace) + 32)
        // Static helpers taking `out` inout, not local functions capturing it: a captured `var`
        // is checked for exclusive access on every call. Each key comes with its punctuation, in
        // one copy.
        Self.word(#"{"app-name":"#, &out); Self.quote(appName, into: &out)
        Self.word(#","app-source":"#, &out); Self.quote(appSource, into: &out)
        Self.word(#","app-icon":"#, &out); Self.quote(appIcon, into: &out)
        Self.word(#","actions":"#, &out); Self.list(actions, &out)
        Self.word(#","hints":"#, &out); Self.list(hints, &out)
        Self.word(#","replaces-id":"#, &out); Self.decimal(UInt64(replacesID), negative: false, into: &out)
        Self.word(#","expire-timeout":"#, &out)
        Self.decimal(UInt64(expireTimeout.magnitude), negative: expireTimeout < 0, into: &out)
        Self.word(#","focus":"#, &out)
        if let focus { Self.quote(focus, into: &out) } else { Self.word("null", &out) }
        Self.word(silent ? #","silent":true"# : #","silent":false"#, &out)
        Self.word(screenLocked ? #","screen-locked":true"# : #","screen-locked":false"#, &out)
        Self.word(#","trace":"#, &out); Self.list(trace, &out)
        if let door { Self.word(#","door":"#, &out); Self.quote(door.rawValue, into: &out) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The stored form's bytes besides its texts and lists, at most: keys, punctuation, numbers, words.
    private static let frameBytes = 200

    /// A list's bytes without escapes: each item with its quotes and a comma.
    private static func listBytes(_ items: [String]) -> Int {
        items.reduce(0) { $0 + $1.utf8.count + 3 }
    }

    private static func word(_ text: StaticString, _ out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    private static func list(_ items: [String], _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        var first = true
        for item in items {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            quote(item, into: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// `value` in decimal, as `String(_:)` writes it.
    static func decimal(_ value: UInt64, negative: Bool, into out: inout [UInt8]) {
        if negative { out.append(UInt8(ascii: "-")) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(20 - count)...]))
        }
    }

    /// `text` as a JSON string literal.
    static func quote(_ text: String, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { quote(bytes: $0, into: &out) }
    }

    private static func quote(bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Runs that need no escape (most texts are one) are copied at once, and looked through
        // eight bytes at a time; the last up to eight as the last eight (those before them passed).
        let raw = UnsafeRawBufferPointer(bytes)
        var start = 0
        var index = 0
        while index < bytes.count {
            if index + 8 <= bytes.count {
                if !mayNeedEscape(raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                    index += 8
                    continue
                }
            } else if bytes.count >= 8 && !mayNeedEscape(raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)) {
                index = bytes.count
                continue
            }
            let byte = bytes[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if index > start { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index])) }
            if byte < 0x20 {
                out.append(UInt8(ascii: "\\"))
                out.append(UInt8(ascii: "u"))
                out.append(UInt8(ascii: "0"))
                out.append(UInt8(ascii: "0"))
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            } else {
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            }
            index += 1
            start = index
        }
        if index > start { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index])) }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether one of the eight bytes of `word` may be a control character, a quote or a
    /// backslash; false means none is (no byte is missed; bytes from 0x80 up never count). The
    /// "has a byte less than n" and "has a zero byte" tests of Bit Twiddling Hacks.
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits = ones &* 0x80
        let quotes = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslashes = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let below = (word &- ones &* 0x20) & ~word
            | (quotes &- ones) & ~quotes
            | (backslashes &- ones) & ~backslashes
        return below & highBits != 0
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// A stored form read back; nil when absent or not readable (an older row, a damaged one).
    public static func read(_ text: String?) -> KeptRequest? {
        guard let text, !text.isEmpty else { return nil }
        return try? JSONText.decode(KeptRequest.self, from: text)
    }
}
