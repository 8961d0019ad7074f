import FocusBridgeCore
import FocusBridgeDBus

/// `org.freedesktop.Notifications` as the bridge serves it: decodes calls and hands them to
/// the bridge.
enum NotificationsInterface {
    static let busName = "org.freedesktop.Notifications"
    static let name = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"


    static func export(on bus: BusConnection, to bridge: Bridge) throws(DBusError) {
        try bus.export(path: path, interfaceXML: EmbeddedFiles.notificationsXML, interface: name) { call in
            switch call.methodName {
            case "Notify": bridge.notify(call)
            case "CloseNotification": bridge.close(call, id: call.parameters.child(0).uint32 ?? 0)
            case "GetCapabilities": call.reply(.tuple([.strings(bridge.capabilities)]))
            case "GetServerInformation":
                let info = bridge.serverInformation
                call.reply(.tuple([.string(info.name), .string(info.vendor), .string(info.version),
                                   .string(info.specVersion)]))
            default:
                call.fail(DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod",
                                    message: "no method \(call.methodName)"))
            }
        }
    }

    /// The core's view of `Notify`'s arguments (`susssasa{sv}i`, checked by GDBus).
    static func decode(_ parameters: Variant) -> NotificationRequest {
        var hints: [String: HintValue] = [:]
        for (key, value) in parameters.child(6).dictionaryEntries {
            hints[key] = hintValue(value.unboxed)
        }
        return NotificationRequest(
            appName: parameters.child(0).string ?? "", replacesID: parameters.child(1).uint32 ?? 0,
            appIcon: parameters.child(2).string ?? "", summary: parameters.child(3).string ?? "",
            body: parameters.child(4).string ?? "", actions: parameters.child(5).strings ?? [],
            hints: hints, expireTimeout: parameters.child(7).int32 ?? -1)
    }

    private static func hintValue(_ value: Variant) -> HintValue {
        if let text = value.string { return .string(text) }
        if let number = value.integer { return .integer(number) }
        if let flag = value.bool { return .bool(flag) }
        if let number = value.double { return .double(number) }
        if let texts = value.strings { return .strings(texts) }
        return .other(signature: value.typeString)
    }
}
