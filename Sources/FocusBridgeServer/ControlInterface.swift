import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeStore
import Foundation

/// `org.focusbridge.Control1`, the interface `focusctl` talks to. Answers are JSON texts whose
/// keys are documented in focusctl(1).
enum ControlInterface {
    static let busName = "org.focusbridge.FocusBridge"
    static let name = "org.focusbridge.Control1"
    static let path = "/org/focusbridge/FocusBridge"
    static let invalidConfig = "org.focusbridge.Error.InvalidConfig"
    static let invalidRequest = "org.focusbridge.Error.InvalidRequest"

    static func export(on bus: BusConnection, bridge: Bridge, store: Store,
                       reload: @escaping () -> ConfigError?) throws(DBusError) {
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
                case "Reload":
                    if let error = reload() {
                        call.fail(DBusError(name: invalidConfig, message: error.description))
                    } else {
                        call.reply()
                    }
                case "SetSilent":
                    try bridge.setSilent(call.parameters.child(0).bool ?? false)
                    call.reply()
                case "Explain":
                    call.reply(.tuple([.string(try explain(call.parameters.child(0).string ?? "", bridge: bridge))]))
                default:
                    call.fail(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod",
                                        message: "no method \(call.methodName)"))
                }
            } catch let error as ExplainRequest.Invalid {
                call.fail(DBusError(name: invalidRequest, message: error.description))
            } catch {
                call.fail(DBusError(name: DBusError.failed, message: "\(error)"))
            }
        }
    }

    static func status(bridge: Bridge, store: Store) throws -> [String: Any] {
        let counts = try store.countsByDecision()
        return [
            "version": focusBridgeVersion,
            "silent": bridge.silent,
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

    /// Decides a described notification with the daemon's live state, without sending it.
    static func explain(_ json: String, bridge: Bridge) throws -> String {
        let request: ExplainRequest
        do { request = try JSONDecoder().decode(ExplainRequest.self, from: Data(json.utf8)) } catch {
            throw ExplainRequest.Invalid(description: "the request is not valid JSON for Explain: \(error)")
        }
        let decision = try Explanation.decide(request, context: bridge.policyContext(), timeZone: .current)
        return JSONText.encode(JSONText.object(decision))
    }
}
