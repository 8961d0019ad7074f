/// A D-Bus message body as `Control1Request` builds and reads it: the cold path's `Variant`
/// (FocusBridgeDBus) has each of these members, and each program that sends or serves Control1
/// says so in one line (`extension Variant: Control1Body {}`). So FocusBridgeControl
/// stays free of the bus and its C modules, which would otherwise be loaded into every module
/// that imports it (ARCHITECTURE, "Modules").
public protocol Control1Body {
    static func tuple(_ values: [Self]) -> Self
    static func string(_ value: String) -> Self
    static func uint32(_ value: UInt32) -> Self
    static func double(_ value: Double) -> Self
    static func bool(_ value: Bool) -> Self
    /// The D-Bus type, such as `(sdb)`.
    var typeString: String { get }
    var children: [Self] { get }
    var string: String? { get }
    var uint32: UInt32? { get }
    var double: Double? { get }
    var bool: Bool? { get }
}

/// A call of `org.focusbridge.Control1` with its arguments typed, written once for both sides:
/// focusctl (and focus-bench) send `body()`, the server reads the call back with
/// `init(_:body:)`. Each case's arguments are the method's in-arguments in the order and types of
/// `Control1Method.inSignature`; `Control1RequestTests` checks every case against it both ways.
public enum Control1Request: Equatable, Sendable {
    case status
    /// At most `limit` entries (0: the default), of `app` alone unless it is empty.
    case history(limit: UInt32, app: String)
    /// The history of the last `days` days (0: the default).
    case report(days: UInt32)
    /// The Time Sensitive review; `deliver`: its notifications are sent too.
    case review(deliver: Bool)
    case reload
    case setSilent(Bool)
    /// An `ExplainRequest` as JSON.
    case explain(json: String)
    /// `seconds` 0: no duration; `until` empty: no end time.
    case focusOn(name: String, seconds: Double, until: String)
    case focusOff
    case focusList
    case summary
    case deliverSummary
    case explainNotification(id: UInt32)
    case show(id: UInt32)
    case dismiss(id: UInt32)
    case dismissHeld
    /// `digest` 0: the newest open digest.
    case showAll(digest: UInt32)
    case snooze(id: UInt32, seconds: Double)
    case watch
    case apps
    /// `key` and `value` as typed (`AppChoice.Key`, `AppChoice.parse`); `new`: the app need not
    /// have been seen.
    case setAppChoice(app: String, key: String, value: String, new: Bool)
    /// `key` empty: every choice made for the app.
    case resetAppChoice(app: String, key: String)
    /// `until`: seconds since the epoch.
    case mute(app: String, until: Double, new: Bool)
    case unmute(app: String)
    case shareStatus
    case shareForget(device: String)

    /// A body that is not the method's in-arguments: their count or a type differs.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    public var method: Control1Method {
        switch self {
        case .status: .status
        case .history: .history
        case .report: .report
        case .review: .review
        case .reload: .reload
        case .setSilent: .setSilent
        case .explain: .explain
        case .focusOn: .focusOn
        case .focusOff: .focusOff
        case .focusList: .focusList
        case .summary: .summary
        case .deliverSummary: .deliverSummary
        case .explainNotification: .explainNotification
        case .show: .show
        case .dismiss: .dismiss
        case .dismissHeld: .dismissHeld
        case .showAll: .showAll
        case .snooze: .snooze
        case .watch: .watch
        case .apps: .apps
        case .setAppChoice: .setAppChoice
        case .resetAppChoice: .resetAppChoice
        case .mute: .mute
        case .unmute: .unmute
        case .shareStatus: .shareStatus
        case .shareForget: .shareForget
        }
    }

    /// The in-arguments, in order.
    private func arguments<Body: Control1Body>() -> [Body] {
        switch self {
        case .status, .reload, .focusOff, .focusList, .summary, .deliverSummary, .dismissHeld, .watch, .apps, .shareStatus:
            []
        case .history(let limit, let app): [.uint32(limit), .string(app)]
        case .report(let days): [.uint32(days)]
        case .review(let deliver): [.bool(deliver)]
        case .setSilent(let on): [.bool(on)]
        case .explain(let json): [.string(json)]
        case .focusOn(let name, let seconds, let until): [.string(name), .double(seconds), .string(until)]
        case .explainNotification(let id), .show(let id), .dismiss(let id): [.uint32(id)]
        case .showAll(let digest): [.uint32(digest)]
        case .snooze(let id, let seconds): [.uint32(id), .double(seconds)]
        case .setAppChoice(let app, let key, let value, let new): [.string(app), .string(key), .string(value), .bool(new)]
        case .resetAppChoice(let app, let key): [.string(app), .string(key)]
        case .mute(let app, let until, let new): [.string(app), .double(until), .bool(new)]
        case .unmute(let app): [.string(app)]
        case .shareForget(let device): [.string(device)]
        }
    }

    /// The call's body: a tuple of the in-arguments, nil for a method that takes none.
    public func body<Body: Control1Body>() -> Body? {
        let arguments: [Body] = arguments()
        return arguments.isEmpty ? nil : .tuple(arguments)
    }

    /// Reads a call of `method` from its body (nil or `()` for none); throws `Invalid` for a body
    /// whose type is not `(inSignature)`.
    public init<Body: Control1Body>(_ method: Control1Method, body: Body?) throws(Invalid) {
        let type = body?.typeString ?? "()"
        guard type == "(\(method.inSignature))" else {
            throw Invalid(description: "\(method.rawValue) takes (\(method.inSignature)), not \(type)")
        }
        // The type is the signature's, so each argument reads as its type.
        let arguments = body?.children ?? []
        func string(_ index: Int) -> String { arguments[index].string ?? "" }
        func uint32(_ index: Int) -> UInt32 { arguments[index].uint32 ?? 0 }
        func double(_ index: Int) -> Double { arguments[index].double ?? .nan }
        func bool(_ index: Int) -> Bool { arguments[index].bool ?? false }
        switch method {
        case .status: self = .status
        case .history: self = .history(limit: uint32(0), app: string(1))
        case .report: self = .report(days: uint32(0))
        case .review: self = .review(deliver: bool(0))
        case .reload: self = .reload
        case .setSilent: self = .setSilent(bool(0))
        case .explain: self = .explain(json: string(0))
        case .focusOn: self = .focusOn(name: string(0), seconds: double(1), until: string(2))
        case .focusOff: self = .focusOff
        case .focusList: self = .focusList
        case .summary: self = .summary
        case .deliverSummary: self = .deliverSummary
        case .explainNotification: self = .explainNotification(id: uint32(0))
        case .show: self = .show(id: uint32(0))
        case .dismiss: self = .dismiss(id: uint32(0))
        case .dismissHeld: self = .dismissHeld
        case .showAll: self = .showAll(digest: uint32(0))
        case .snooze: self = .snooze(id: uint32(0), seconds: double(1))
        case .watch: self = .watch
        case .apps: self = .apps
        case .setAppChoice: self = .setAppChoice(app: string(0), key: string(1), value: string(2), new: bool(3))
        case .resetAppChoice: self = .resetAppChoice(app: string(0), key: string(1))
        case .mute: self = .mute(app: string(0), until: double(1), new: bool(2))
        case .unmute: self = .unmute(app: string(0))
        case .shareStatus: self = .shareStatus
        case .shareForget: self = .shareForget(device: string(0))
        }
    }
}
