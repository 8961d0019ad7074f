/// The methods of `org.focusbridge.Control1` (dbus/org.focusbridge.Control1.xml), each with its
/// D-Bus name and signatures, written once: the server switches over them and focusctl calls
/// them by case. FocusBridgeControlTests checks the list against the XML the server serves, both
/// ways, so a method added on one side only fails the tests.
public enum Control1Method: String, CaseIterable, Sendable {
    case status = "Status"
    case history = "History"
    case report = "Report"
    case review = "Review"
    case reload = "Reload"
    case setSilent = "SetSilent"
    case explain = "Explain"
    case focusOn = "FocusOn"
    case focusOff = "FocusOff"
    case focusList = "FocusList"
    case summary = "Summary"
    case deliverSummary = "DeliverSummary"
    case explainNotification = "ExplainNotification"
    case show = "Show"
    case dismiss = "Dismiss"
    case dismissHeld = "DismissHeld"
    case showAll = "ShowAll"
    case snooze = "Snooze"
    case watch = "Watch"
    case apps = "Apps"
    case setAppChoice = "SetAppChoice"
    case resetAppChoice = "ResetAppChoice"
    case mute = "Mute"
    case unmute = "Unmute"
    case shareStatus = "ShareStatus"
    case shareForget = "ShareForget"

    /// The types of the in-arguments, concatenated (`""` for none).
    public var inSignature: String {
        switch self {
        case .status, .reload, .focusOff, .focusList, .summary, .deliverSummary, .dismissHeld, .watch, .apps, .shareStatus:
            ""
        case .history: "us"
        case .report: "u"
        case .setSilent, .review: "b"
        case .explain, .unmute, .shareForget: "s"
        case .focusOn: "sds"
        case .explainNotification, .show, .dismiss, .showAll: "u"
        case .setAppChoice: "sssb"
        case .resetAppChoice: "ss"
        case .mute: "sdb"
        case .snooze: "ud"
        }
    }

    /// The types of the out-arguments, concatenated: one JSON text (`s`) for most.
    public var outSignature: String {
        switch self {
        case .reload, .setSilent, .watch: ""
        case .deliverSummary: "u"
        case .status, .history, .report, .review, .explain, .focusOn, .focusOff, .focusList, .summary, .explainNotification, .show,
             .dismiss, .dismissHeld, .showAll, .snooze, .apps, .setAppChoice, .resetAppChoice, .mute, .unmute, .shareStatus,
             .shareForget:
            "s"
        }
    }

    /// The reply's type as a caller checks it (`(s)`), nil for a method that answers nothing.
    public var replyType: String? { outSignature.isEmpty ? nil : "(\(outSignature))" }
}

/// The signal of `org.focusbridge.Control1`: the status a watcher shows, sent to each
/// connection that called `Watch`.
extension ControlNames {
    public static let stateChanged = "StateChanged"
}
