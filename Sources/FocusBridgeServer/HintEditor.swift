import FocusBridgeCore
import FocusBridgeDBus

/// Builds the hints the daemon receives from the client's, following a `Presentation`: the
/// bridge's own `x-focus-*` hints and the removed ones out, urgency and sound set, the sender's
/// identity added; every other hint is passed on as the very same value, byte for byte.
enum HintEditor {
    static func forwardedHints(_ original: Variant, presentation: Presentation, notification: NotificationRequest,
                               app: AppIdentity, process: ProcessIdentity?) -> Variant {
        var entries = original.dictionaryEntries.filter { presentation.forwards(hint: $0.key) }
        entries.append(("urgency", .byte(presentation.urgency)))
        if presentation.suppressSound { entries.append(("suppress-sound", .bool(true))) }
        if notification.hints["desktop-entry"] == nil, let entry = app.inferredDesktopEntry {
            entries.append(("desktop-entry", .string(entry)))
        }
        if notification.hints["sender-pid"] == nil, let pid = process?.processID {
            entries.append(("sender-pid", .int64(Int64(pid))))
        }
        return .dictionary(entries)
    }
}
