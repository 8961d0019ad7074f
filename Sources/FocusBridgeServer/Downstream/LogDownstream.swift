import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeSystem

/// The downstream of last resort: each delivered notification becomes one line on standard
/// output (the journal, under systemd), so nothing is silently lost when no daemon exists.
final class LogDownstream: Downstream {
    let mode = DownstreamSettings.Mode.log
    let target = "standard output"
    let isConnected = true
    let capabilities: [String]? = ["body"]
    let serverInformation: ServerInformation? = nil
    weak var events: DownstreamEvents?
    var passthrough: Passthrough? { nil }

    func start() { events?.downstreamReady() }

    func notify(_ notification: ForwardedNotification, replacing daemonID: UInt32,
                completion: @escaping (Result<UInt32, DBusError>) -> Void) {
        let line = "notify id=\(notification.id) app=\(JSONText.quote(notification.appKey)) "
            + "level=\(notification.level.rawValue) summary=\(JSONText.quote(notification.summary)) "
            + "body=\(JSONText.quote(notification.body))"
        Self.write(line)
        completion(.success(notification.id))
    }

    func close(daemonID: UInt32, bridgeID: UInt32) {
        Self.write("close id=\(bridgeID)")
        events?.downstreamSignal(.closed(daemonID: daemonID, reason: .closedByCall))
    }

    func stop() {}

    private static func write(_ line: String) {
        StandardStream.output.write(line + "\n")
    }
}
