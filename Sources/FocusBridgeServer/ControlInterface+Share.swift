import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON

/// The `[share]` calls of `org.focusbridge.Control1` (focusctl(1), SHARE): this device and the
/// devices seen in the share folder, and forgetting one.
extension ControlInterface {
    /// Handles `call` when it is one of these methods; false when it is not.
    func handleShareCall(_ call: MethodCall) throws -> Bool {
        switch call.methodName {
        case "ShareStatus":
            call.reply(.tuple([.string(JSONText.encode(shareStatus()))]))
        case "ShareForget":
            let name = call.parameters.child(0).string ?? ""
            guard let share, share.forget(name) else {
                let known = share.map { Array($0.ledger.devices.keys).sorted() } ?? []
                throw Refused("no device \"\(name.prefix(80))\" has been seen in the share folder"
                              + ClosestName.hint(name, among: known))
            }
            let message = "\(name) is forgotten; a new change made there brings it back."
            call.reply(.tuple([.string(JSONText.encode(ShareForgetReport(device: name, message: message)))]))
        default:
            return false
        }
        return true
    }

    func shareStatus() -> ShareReport {
        guard let share else {
            return ShareReport(folder: nil, device: SharedFocus.deviceName(host: ShareFolder.hostName()), problem: nil,
                               ledger: ShareLedger())
        }
        return ShareReport(folder: share.folder, device: share.device, problem: share.problem, ledger: share.ledger)
    }
}
