/// Tidies a notification's actions as the HIG asks: at most four buttons, destructive ones
/// marked and last, so that when something must go a destructive action goes first.
public enum ActionNormaliser {
    public static let destructiveHint = "x-focus-destructive"
    /// The key a destructive `default` action is forwarded under, as a labelled button.
    public static let demotedDefaultKey = "x-focus-default"
    /// The label of a demoted `default` action that had none.
    public static let demotedDefaultLabel = "Open"
    /// No daemon is asked to show more buttons than this.
    public static let buttonLimit = 4

    public struct Result: Equatable, Sendable {
        /// The actions to forward, in order (`default` first, buttons, `inline-reply` last).
        public var actions: [ActionPair]
        /// Forwarded key → the client's key, where they differ.
        public var originalKeys: [String: String]
        public var trace: [String]

        public var flat: [String] { ActionPair.flatten(actions) }
    }

    /// `daemonLimit`: how many buttons the daemon behind the bridge shows at most (GNOME: 3), so
    /// the bridge, not the daemon, decides which go — destructive ones first.
    public static func normalise(_ flat: [String], destructiveKeys: [String], settings: GeneralSettings,
                                 daemonLimit: Int? = nil) -> Result {
        // Most notifications have no actions: no sets, arrays or settings looked at.
        guard !flat.isEmpty else { return Result(actions: [], originalKeys: [:], trace: []) }
        var trace: [String] = []
        if flat.count % 2 == 1 { trace.append("actions: odd-length array; trailing \"\(flat.last!)\" dropped") }
        var seen: Set<String> = []
        var pairs: [ActionPair] = []
        for pair in ActionPair.pairs(from: flat) {
            if pair.key.isEmpty {
                trace.append("actions: pair with an empty key dropped")
            } else if pair.label.isEmpty && pair.key != "default" && pair.key != "inline-reply" {
                trace.append("actions: \"\(pair.key)\" has no label; dropped")
            } else if pair.key.hasPrefix(QuickAction.keyPrefix) {
                trace.append("actions: \"\(pair.key)\" is a key of the bridge's own quick actions; dropped")
            } else if !seen.insert(pair.key).inserted {
                trace.append("actions: repeated key \"\(pair.key)\" dropped")
            } else {
                pairs.append(pair)
            }
        }

        let flagged = Set(destructiveKeys)
        // Only a notification with actions needs the destructive phrases split into words (most
        // have none, and this runs for every Notify).
        var phrases: [[String]]?
        func isDestructive(_ pair: ActionPair) -> Bool {
            if flagged.contains(pair.key) { return true }
            if phrases == nil { phrases = settings.destructiveLabels.map(Self.words).filter { !$0.isEmpty } }
            let labelWords = Self.words(pair.label)
            return phrases!.contains { labelWords.containsRun($0) }
        }

        var clickAction: ActionPair?
        var reply: ActionPair?
        var buttons: [ActionPair] = []
        var destructive: [ActionPair] = []
        var originalKeys: [String: String] = [:]
        for pair in pairs {
            switch pair.key {
            case "default" where isDestructive(pair):
                let label = pair.label.isEmpty ? demotedDefaultLabel : pair.label
                destructive.append(ActionPair(key: demotedDefaultKey, label: label))
                originalKeys[demotedDefaultKey] = "default"
                trace.append("actions: the default action is destructive; forwarded as a button, not as the click")
            case "default":
                clickAction = pair
            case "inline-reply":
                reply = pair
            default:
                if isDestructive(pair) { destructive.append(pair) } else { buttons.append(pair) }
            }
        }

        let limit = min(max(settings.maxActions, 0), buttonLimit, daemonLimit ?? buttonLimit)
        var ordered = buttons + destructive
        if ordered.count > limit {
            let cut = ordered[limit...].map { "\"\($0.label)\"" }.joined(separator: ", ")
            let why = daemonLimit.map { $0 < min(max(settings.maxActions, 0), buttonLimit) ? " (the daemon shows no more)" : "" } ?? ""
            trace.append("actions: at most \(limit) buttons\(why); \(cut) dropped")
            ordered = Array(ordered.prefix(limit))
        }
        let destructiveKeySet = Set(destructive.map(\.key))
        ordered = ordered.map { pair in
            guard destructiveKeySet.contains(pair.key) else { return pair }
            return ActionPair(key: pair.key, label: settings.destructiveMarker + pair.label)
        }
        let marked = ordered.filter { destructiveKeySet.contains($0.key) }.map { "\"\($0.key)\"" }
        if !marked.isEmpty { trace.append("actions: destructive, marked and placed last: \(marked.joined(separator: ", "))") }

        let actions = (clickAction.map { [$0] } ?? []) + ordered + (reply.map { [$0] } ?? [])
        return Result(actions: actions, originalKeys: originalKeys, trace: trace)
    }

    /// A label's words, lowercased: runs of letters, marks and digits (Unicode L*, M* and N*, the
    /// set Foundation calls `alphanumerics`); everything else separates. Written out by hand:
    /// Foundation's `components(separatedBy:)` cost more than the whole rest of the policy.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var word = String.UnicodeScalarView()
        for scalar in text.lowercased().unicodeScalars {
            if isAlphanumeric(scalar) {
                word.append(scalar)
            } else if !word.isEmpty {
                words.append(String(word))
                word = String.UnicodeScalarView()
            }
        }
        if !word.isEmpty { words.append(String(word)) }
        return words
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
        }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }
}

extension Array where Element == String {
    /// Whether `run` appears here as consecutive elements.
    func containsRun(_ run: [String]) -> Bool {
        guard !run.isEmpty, run.count <= count else { return false }
        return (0...(count - run.count)).contains { Array(self[$0..<$0 + run.count]) == run }
    }
}
