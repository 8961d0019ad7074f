import ArgumentParser
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeJSON
import FocusBridgeSystem
#if canImport(Glibc)
import Glibc
#endif

/// Control1's calls are built as `Variant` bodies (Control1Request, FocusBridgeControl).
extension Variant: Control1Body {}

/// The connection to the running bridge's control interface, with focusctl's exit codes:
/// 2 when no bridge is running, 1 when it refuses.
struct ControlClient {
    /// The one line of exit 2, naming the way to start it this session has: the user unit
    /// where a user manager runs and one of its unit folders has it, else the program itself.
    static var notRunning: String {
        let environment = Environment.all
        return StartAdvice.notRunning(unitInstalled: SessionFacts.installedUnit(environment) != nil,
                                      userManager: StartAdvice.userManagerSocket(environment).map(FileStatus.exists) ?? false)
    }

    let bus: VariantConnection

    /// Without a session bus address focusctl says so (exit 2) rather than let GLib autolaunch a
    /// new bus, on which no focus-bridge could be running.
    init() {
        guard SessionBusAddress.isKnown() else {
            Self.fail("focusctl: DBUS_SESSION_BUS_ADDRESS is not set, so there is no session bus to find focus-bridge on.", code: 2)
        }
        do { bus = try VariantConnection.session() } catch {
            Self.fail(Self.notRunning, code: 2)
        }
    }

    /// Calls a method of `org.focusbridge.Control1`; a refusal ends focusctl with its message.
    @discardableResult
    func call(_ request: Control1Request, timeoutMilliseconds: Int32 = 10_000) -> Variant {
        let method = request.method
        do {
            return try bus.callSync(ControlNames.busName, ControlNames.path,
                                    ControlNames.interface, method.rawValue, request.body(), replyType: method.replyType,
                                    timeoutMilliseconds: timeoutMilliseconds)
        } catch {
            if [DBusError.serviceUnknown, DBusError.nameHasNoOwner].contains(error.name) {
                Self.fail(Self.notRunning, code: 2)
            }
            // A configuration's mistakes are its PATH:LINE:COLUMN lines, as check-config prints
            // them; every other refusal is a line of focusctl's own.
            if error.name == ControlNames.invalidConfig { Self.fail(error.message, code: 1) }
            if error.name.hasPrefix(ControlNames.errorPrefix) { Self.fail(Self.prefixed(error.message), code: 1) }
            Self.fail("focusctl: focus-bridge refused \(method.rawValue): \(error.message)", code: 1)
        }
    }

    /// Calls a method that answers one JSON text: the text, and its typed reading.
    func report<T: Decodable>(_ type: T.Type, _ request: Control1Request,
                              timeoutMilliseconds: Int32 = 10_000) -> (value: T, json: String) {
        let text = call(request, timeoutMilliseconds: timeoutMilliseconds).child(0).string ?? "null"
        do {
            return (try JSONText.decode(type, from: text), text)
        } catch {
            Self.fail("focusctl: focus-bridge answered \(request.method.rawValue) with JSON of another shape (\(error)); is it another version?", code: 1)
        }
    }

    /// The status, asynchronously (nil when the daemon does not answer), for `watch`.
    func statusAsync(_ completion: @escaping (StatusReport?) -> Void) {
        bus.call(ControlNames.busName, ControlNames.path, ControlNames.interface, Control1Method.status.rawValue,
                 replyType: Control1Method.status.replyType, timeoutMilliseconds: 10_000) { result in
            guard case .success(let reply) = result, let text = reply.child(0).string else { return completion(nil) }
            completion(try? JSONText.decode(StatusReport.self, from: text))
        }
    }

    /// Asks the bridge for its `StateChanged` signals (sent only to those who ask). A refusal
    /// (another user's bridge) leaves `watch` with the statuses it reads itself.
    func watchAsync() {
        bus.call(ControlNames.busName, ControlNames.path, ControlNames.interface, Control1Method.watch.rawValue,
                 timeoutMilliseconds: 10_000) { _ in }
    }

    /// `focusctl: MESSAGE`: every error line focusctl writes starts so, but a configuration's
    /// `PATH:LINE:COLUMN: message` lines.
    static func prefixed(_ message: String) -> String {
        message.hasPrefix("focusctl") ? message : "focusctl: " + message
    }

    static func fail(_ message: String, code: Int32) -> Never {
        // The bridge's error names what a caller sent (an app name): shown as text, one line per
        // line of the message (a configuration's mistakes, one per line).
        StandardStream.error.write(message.escapingControlCharactersKeepingLines + "\n")
        exit(code)
    }
}
