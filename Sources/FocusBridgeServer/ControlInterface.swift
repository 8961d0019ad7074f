import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeStore

/// `org.focusbridge.Control1`, the interface `focusctl` talks to. Answers are JSON texts whose
/// keys are documented in focusctl(1).
enum ControlInterface {
    static let busName = "org.focusbridge.FocusBridge"
    static let name = "org.focusbridge.Control1"
    static let path = "/org/focusbridge/FocusBridge"

    static func export(on bus: BusConnection, bridge: Bridge, store: Store) throws(DBusError) {
        try bus.export(path: path, interfaceXML: EmbeddedFiles.controlXML, interface: name) { call in
            do {
                switch call.methodName {
                case "Status":
                    call.reply(.tuple([.string(JSONText.encode(try status(bridge: bridge, store: store)))]))
                case "History":
                    let limit = Int(call.parameters.child(0).uint32 ?? 0)
                    let app = call.parameters.child(1).string ?? ""
                    let entries = try store.history(limit: limit == 0 ? 50 : limit, app: app)
                    call.reply(.tuple([.string(JSONText.encode(entries.map(JSONText.object)))]))
                default:
                    call.fail(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod",
                                        message: "no method \(call.methodName)"))
                }
            } catch {
                call.fail(DBusError(name: DBusError.failed, message: "\(error)"))
            }
        }
    }

    static func status(bridge: Bridge, store: Store) throws -> [String: Any] {
        let counts = try store.countsByDecision()
        return [
            "version": focusBridgeVersion,
            "downstream": [
                "mode": bridge.downstream.mode,
                "target": bridge.downstream.target,
                "connected": bridge.downstream.isConnected,
            ] as [String: Any],
            "counts": [
                "received": bridge.received,
                "delivered": bridge.delivered,
                "queued": bridge.queuedCount,
                "in-flight": bridge.inFlightCount,
                "held-focus": counts[.heldFocus] ?? 0,
                "held-summary": counts[.heldSummary] ?? 0,
            ],
        ]
    }
}
