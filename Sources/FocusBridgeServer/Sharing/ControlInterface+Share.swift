import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON

/// The `[share]` calls of `org.focusbridge.Control1` (focusctl(1), SHARE): this device and the
/// devices seen in the share folder, and forgetting one.
extension ControlInterface {
    /// Handles `call`, one of these methods (`handle` sends no other here).
    func handleShareCall(_ call: VariantCall, _ request: Control1Request) throws {
        switch request {
        case .shareStatus:
            call.reply(.tuple([.string(JSONText.encode(shareStatus()))]))
        case .shareForget(let name):
            guard let share, share.forget(name) else {
                let known = share.map { Array($0.ledger.devices.keys).sorted() } ?? []
                throw Refused("no device \"\(name.prefix(80))\" has been seen in the share folder"
                              + ClosestName.hint(name, among: known))
            }
            let message = "\(name) is forgotten; a new change made there brings it back."
            call.reply(.tuple([.string(JSONText.encode(ShareForgetReport(device: name, message: message)))]))
        default:
            preconditionFailure("\(request.method.rawValue) is not a share call")
        }
    }

    func shareStatus() -> ShareReport {
        guard let share else {
            return ShareReport(folder: nil, device: SharedFocus.deviceName(host: ShareFolder.hostName()), problem: nil,
                               ledger: ShareLedger())
        }
        return ShareReport(folder: share.folder, device: share.device, problem: share.problem, ledger: share.ledger)
    }
}
