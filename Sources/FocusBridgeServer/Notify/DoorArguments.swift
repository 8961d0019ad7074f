import FocusBridgeCore
import FocusBridgeDBus

/// A notification's arguments as its door decoded them: what the bridge carries from the plan to
/// the delivery, and holds and replays. The plan reads only `request`; the delivery encodes for
/// the door it came by.
enum DoorArguments {
    case fdo(NotifyArguments)
    case gtk(GtkArguments)

    /// A held one's stored arguments, of either door; nil when they are neither's.
    init?(storedType type: String, bytes: [UInt8]) {
        if type == GtkDoor.storedSignature {
            guard let arguments = GtkArguments(storedType: type, bytes: bytes) else { return nil }
            self = .gtk(arguments)
        } else {
            guard let arguments = NotifyArguments(storedType: type, bytes: bytes) else { return nil }
            self = .fdo(arguments)
        }
    }

    var request: NotificationRequest {
        switch self {
        case .fdo(let arguments): arguments.request
        case .gtk(let arguments): arguments.request
        }
    }

    var byteCount: Int {
        switch self {
        case .fdo(let arguments): arguments.byteCount
        case .gtk(let arguments): arguments.byteCount
        }
    }

    // What the delivery and the "N more" notification read: the request's, whichever door (a
    // GTK app's ID is its app name; it has no icon). Read field by field, not through `request`,
    // which would copy the whole request on the hot path.
    var summary: String {
        switch self {
        case .fdo(let arguments): arguments.request.summary
        case .gtk(let arguments): arguments.request.summary
        }
    }

    var body: String {
        switch self {
        case .fdo(let arguments): arguments.request.body
        case .gtk(let arguments): arguments.request.body
        }
    }

    /// The name and icon its "N more from App" notification shows.
    var appName: String {
        switch self {
        case .fdo(let arguments): arguments.request.appName
        case .gtk(let arguments): arguments.request.appName
        }
    }

    var appIcon: String {
        switch self {
        case .fdo(let arguments): arguments.request.appIcon
        case .gtk(let arguments): arguments.request.appIcon
        }
    }

    /// The arguments as a held notification keeps them: the store's form, and the ledger's until
    /// the store has them.
    var payload: HeldPayload {
        let all = self.all
        return HeldPayload(type: all.typeString, bytes: all.bytes)
    }

    /// The whole call as the store keeps a held notification (GVariant's serialised form).
    var all: Variant {
        switch self {
        case .fdo(let arguments): arguments.all
        case .gtk(let arguments): arguments.all
        }
    }
}
