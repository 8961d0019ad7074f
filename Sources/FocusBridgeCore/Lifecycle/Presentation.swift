/// How a notification reaches the daemon: urgency and sound for its level, silent mode, hidden
/// previews, and the hints the bridge takes out. Every other hint passes through untouched.
public struct Presentation: Equatable, Sendable {
    public static let vendorHintPrefix = "x-focus-"
    public static let placeholderHint = "x-focus-preview-placeholder"
    public static let imageHints: Set<String> = ["image-data", "image_data", "image-path", "image_path", "icon_data"]

    /// The urgency byte to forward.
    public var urgency: UInt8
    /// Forward `suppress-sound = true`.
    public var suppressSound: Bool
    /// Replacements for summary and body when the preview is hidden.
    public var summary: String?
    public var body: String?
    /// Hints to remove besides the bridge's own `x-focus-*`.
    public var removedHints: Set<String>
    public var trace: [String]

    /// Whether a hint of this name is forwarded.
    public func forwards(hint key: String) -> Bool {
        Self.forwards(hint: key, removedHints: removedHints, suppressSound: suppressSound)
    }

    /// The same rule from the two fields it reads (what a forwarded notification keeps of its
    /// presentation, rather than the whole of it with its trace).
    public static func forwards(hint key: String, removedHints: Set<String>, suppressSound: Bool) -> Bool {
        !key.hasPrefix(vendorHintPrefix) && !removedHints.contains(key)
            && key != "urgency" && !(suppressSound && key == "suppress-sound")
    }

    /// The trace line of each urgency, made once (nearly every `Notify` says one).
    private static let urgencyLines = (0...2).map { "presentation: urgency \($0)" }

    /// - Parameter keepOnScreen: the notification asks to stay on screen
    ///   (`LevelResolver.keepsOnScreen`): urgency 2 when it is active, as it came.
    public static func make(level: InterruptionLevel, notification: NotificationRequest, appName: String,
                            previews: PreviewMode, screenLocked: Bool, silent: Bool,
                            capabilities: [String], keepOnScreen: Bool = false) -> Presentation {
        var trace: [String] = []
        let original = LevelResolver.urgency(of: notification) ?? 1
        let urgency: UInt8 = switch level {
        case .passive: 0
        case .active: keepOnScreen ? 2 : 1
        case .timeSensitive: UInt8(max(original, 1))
        case .critical: 2
        }
        var suppressSound = false
        if level == .passive {
            suppressSound = true
            trace.append("presentation: passive → urgency low, no sound")
        } else if keepOnScreen && level == .active {
            suppressSound = silent
            trace.append("presentation: urgency 2 and its expire timeout, as sent: the page asks to keep it on screen"
                         + (silent ? "; silent mode → no sound" : ""))
        } else if silent && level != .critical {
            suppressSound = true
            trace.append("presentation: silent mode → no sound (urgency \(urgency))")
        } else if !silent && Int(urgency) < urgencyLines.count {
            trace.append(urgencyLines[Int(urgency)])
        } else {
            trace.append("presentation: urgency \(urgency)" + (silent ? " (critical overrides silent mode)" : ""))
        }

        var removed: Set<String> = []
        if !capabilities.contains("action-icons"), notification.hints["action-icons"] != nil {
            removed.insert("action-icons")
            trace.append("presentation: the daemon cannot show action icons; hint action-icons removed")
        }
        var summary: String?
        var body: String?
        let hidden = previews == .never || (previews == .whenUnlocked && screenLocked)
        if hidden {
            summary = appName
            body = notification.hints[placeholderHint]?.string.flatMap { $0.isEmpty ? nil : $0 } ?? "Notification"
            removed.formUnion(imageHints)
            trace.append("presentation: preview hidden (previews = \(previews.rawValue)\(previews == .whenUnlocked ? ", screen locked" : "")); summary and body replaced, images removed")
        }
        return Presentation(urgency: urgency, suppressSound: suppressSound, summary: summary, body: body,
                            removedHints: removed, trace: trace)
    }
}
