import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeTestSupport
import FocusBridgeTime
@testable import FocusBridgeServer
import XCTest

/// The standard interface on the wire, both directions: the fdo door (`FdoDoor.swift`) and the
/// calls to the daemon (`NotificationsInterface.swift`).
final class WireTests: XCTestCase {
    private func notify(hints: [(key: String, value: Variant)]) -> Variant {
        .tuple([.string("Mail"), .uint32(4), .string("mail-icon"), .string("Hi"), .string("Body"),
                .strings(["open", "Open"]), .dictionary(hints), .int32(5000)])
    }

    func testNotifyArgumentsAreReadOncePositionByPosition() {
        let arguments = NotifyArguments(notify(hints: [("urgency", .boxed(.byte(2)))]))
        let request = arguments.request
        XCTAssertEqual(request.appName, "Mail")
        XCTAssertEqual(request.replacesID, 4)
        XCTAssertEqual(request.appIcon, "mail-icon")
        XCTAssertEqual(request.summary, "Hi")
        XCTAssertEqual(request.body, "Body")
        XCTAssertEqual(request.actions, ["open", "Open"])
        XCTAssertEqual(request.hints["urgency"]?.integer, 2)
        XCTAssertEqual(request.expireTimeout, 5000)
        XCTAssertNotNil(NotifyArguments(storedType: arguments.all.typeString, bytes: arguments.all.bytes))
        XCTAssertEqual(arguments.all.bytes, notify(hints: [("urgency", .boxed(.byte(2)))]).bytes)
        XCTAssertNil(NotifyArguments(storedType: "(s)", bytes: Variant.tuple([.string("x")]).bytes))
    }

    func testTheForwardedNotifyKeepsTheClientsHintsByteForByte() {
        let image = Variant.boxed(.string("/tmp/picture.png"))
        let arguments = NotifyArguments(notify(hints: [("image-path", image), ("x-focus-relevance", .boxed(.double(1))),
                                                       ("urgency", .boxed(.byte(0)))]))
        let request = arguments.request
        let app = AppIdentity(key: "Mail", source: .appName)
        let shown = Policy.present(request, app: app, context: PolicyContext())
        let forwarded = arguments.forwarded(id: 9, shown: shown, process: nil)
        let message = forwarded.arguments(replacing: 3)
        XCTAssertEqual(message.typeString, NotificationsInterface.notifySignature)
        XCTAssertEqual(message.child(1).uint32, 3)
        XCTAssertEqual(message.child(3).string, "Hi")
        let hints = Dictionary(message.child(6).dictionaryEntries.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(hints["image-path"]?.bytes, image.bytes)
        XCTAssertNil(hints["x-focus-relevance"], "the bridge's own hints stay with the bridge")
        XCTAssertEqual(hints["urgency"]?.unboxed.integer, Int64(shown.presentation.urgency))
    }

    /// The hot path on a real bus: a client's `Notify` read by `NotifyArguments` from the
    /// message, forwarded to a "daemon" connection with `ForwardedNotification.append`: every
    /// hint type arrives byte for byte, the bridge's own hints stay behind, urgency is set.
    func testEveryHintTypeIsForwardedByteForByteFromTheMessage() throws {
        let bus = try TestBus()
        let client = try MessageConnection.connect(address: bus.address)
        let bridge = try MessageConnection.connect(address: bus.address)
        let daemon = try MessageConnection.connect(address: bus.address)
        let hints = Variant.parse("""
            {'image-data': <(4, 4, 16, true, 8, 4, [byte 0, 1, 2, 255])>, 'urgency': <byte 2>, 'category': <'im'>,
             'resident': <true>, 'x-int': <int32 -3>, 'x-int64': <int64 -9>, 'x-uint': <uint32 7>, 'x-double': <0.25>,
             'x-strv': <['a', '', 'c']>, 'x-bytes': <b'\\x00\\x01'>, 'x-path': <objectpath '/a/b'>,
             'x-nested': <{'deep': <{'t': <uint64 18446744073709551615>}>}>, 'x-var': <<uint32 5>>,
             'x-focus-interruption-level': <'active'>, 'x-structs': <[(1, 'one'), (2, 'two')]>}
            """, type: "a{sv}")!
        var received: Variant?
        try daemon.serve(path: NotificationsInterface.path) { message in
            received = try? message.readBody()
            IncomingCall(message).reply { reply throws(DBusError) in try reply.append(UInt32(77)) }
            return true
        }
        var daemonID: UInt32?
        try bridge.serve(path: NotificationsInterface.path) { message in
            let call = IncomingCall(message)
            guard let arguments = try? NotifyArguments(message) else { call.fail(DBusError(name: DBusError.failed, message: "")); return true }
            call.reply()
            XCTAssertEqual(arguments.request.hints["x-int"], .integer(-3))
            XCTAssertEqual(arguments.request.hints["image-data"], .other(signature: "(iiibiiay)"))
            XCTAssertEqual(arguments.all.bytes, Variant.tuple([.string("App"), .uint32(0), .string("icon"), .string("Sum"),
                                                               .string("Body"), .strings(["k", "K"]), hints, .int32(-1)]).bytes,
                           "the stored form is what GDBus stored")
            let app = AppIdentity(key: "App", source: .appName)
            let shown = Policy.present(arguments.request, app: app, context: PolicyContext())
            let forwarded = arguments.forwarded(id: 3, shown: shown, process: nil)
            NotificationsInterface.notify(forwarded, replacing: 0, on: bridge, name: daemon.uniqueName,
                                          timeoutMilliseconds: 5000) { daemonID = try? $0.get() }
            return true
        }
        let call = try client.methodCall(bridge.uniqueName, NotificationsInterface.path, NotificationsInterface.name, "Notify")
        try call.appendBody(.tuple([.string("App"), .uint32(0), .string("icon"), .string("Sum"), .string("Body"),
                                    .strings(["k", "K"]), hints, .int32(-1)]))
        client.call(call) { _ in }
        waitOnMainLoop(until: { daemonID != nil })
        XCTAssertEqual(daemonID, 77)
        guard let received else { return XCTFail("nothing reached the daemon") }
        XCTAssertEqual(received.typeString, NotificationsInterface.notifySignature)
        XCTAssertEqual(received.child(3).string, "Sum")
        let sent = Dictionary(hints.dictionaryEntries.map { ($0.key, $0.value.bytes) }, uniquingKeysWith: { a, _ in a })
        var got: [String: [UInt8]] = [:]
        for (key, value) in received.child(6).dictionaryEntries { got[key] = value.bytes }
        for (key, bytes) in sent where !key.hasPrefix("x-focus-") && key != "urgency" {
            XCTAssertEqual(got[key], bytes, key)
        }
        XCTAssertNil(got["x-focus-interruption-level"])
        XCTAssertEqual(Set(got.keys).subtracting(sent.keys), [])
        XCTAssertNotNil(got["urgency"])
    }

    func testTheDaemonsSignalsAreReadAndAnUnknownReasonPassesThrough() throws {
        let bus = try TestBus()
        let connection = try MessageConnection.connect(address: bus.address)
        func signal(_ member: String, _ arguments: Variant) -> DaemonSignal? {
            guard let message = try? connection.signal(NotificationsInterface.path, NotificationsInterface.name, member),
                  (try? message.appendBody(arguments)) != nil, (try? message.sealForReading()) != nil else {
                XCTFail("cannot build the signal")
                return nil
            }
            return DaemonSignal(message)
        }
        guard case .closed(let id, let reason)? = signal("NotificationClosed", .tuple([.uint32(7), .uint32(5)])) else {
            return XCTFail("NotificationClosed not read")
        }
        XCTAssertEqual(id, 7)
        XCTAssertEqual(reason.rawValue, 5)
        guard case .actionInvoked(_, let key)? = signal("ActionInvoked", .tuple([.uint32(7), .string("open")])) else {
            return XCTFail("ActionInvoked not read")
        }
        XCTAssertEqual(key, "open")
        XCTAssertNil(signal("ActionInvoked", .tuple([.uint32(7), .uint32(1)])))
        XCTAssertNil(signal("NotificationClosed", .tuple([.uint32(7)])))
        XCTAssertNil(signal("Something", .tuple([.uint32(7), .string("x")])))
        XCTAssertEqual(signal("ActivationToken", .tuple([.uint32(7), .string("token")]))?.daemonID, 7)
    }
}

/// The GTK door on the wire: `AddNotification` read once (`GtkArguments`), kept whole for a
/// held one, and encoded for the shell with only what the decision changed.
final class GtkWireTests: XCTestCase {
    private func button(_ label: String, _ action: String, target: Int32) -> Variant {
        .dictionary([("label", .string(label)), ("action", .string(action)), ("target", .boxed(.int32(target)))])
    }

    private var dictionary: Variant {
        .dictionary([("title", .string("New mail")), ("body", .string("from Ada")), ("priority", .string("high")),
                     ("icon", .tuple([.string("themed"), .boxed(.strings(["mail"]))])),
                     ("default-action", .string("app.open")), ("category", .string("email.arrived")),
                     ("buttons", .array(of: "a{sv}", [button("Delete", "app.delete", target: 0),
                                                       button("Reply", "app.reply", target: 1)]))])
    }

    func testAddNotificationIsReadOnceAndKeptWhole() throws {
        let arguments = GtkArguments(appID: "org.example.Mail", id: "inbox", dictionary: dictionary)
        XCTAssertEqual(arguments.notification.title, "New mail")
        XCTAssertEqual(arguments.notification.priority, .high)
        XCTAssertEqual(arguments.notification.buttonLabels, ["Delete", "Reply"])
        XCTAssertEqual(arguments.request.hints["category"]?.string, "email.arrived")
        let stored = try XCTUnwrap(DoorArguments(storedType: arguments.all.typeString, bytes: arguments.all.bytes))
        guard case .gtk(let back) = stored else { return XCTFail("a stored AddNotification read back as another door's") }
        XCTAssertEqual(back.dictionary.bytes, dictionary.bytes, "the dictionary, byte for byte")
        XCTAssertEqual(back.notification, arguments.notification)
        let replacing = arguments.replacing(9)
        XCTAssertEqual(replacing.request.replacesID, 9)
        XCTAssertEqual(replacing.request.summary, "New mail")
        XCTAssertEqual(replacing.notification, arguments.notification)
        XCTAssertTrue(replacing.dictionary === arguments.dictionary, "the app's dictionary, kept, not decoded again")
        XCTAssertEqual(replacing.byteCount, arguments.byteCount)
    }

    func testWhatIsShownKeepsTheAppsKeysAndChangesOnlyWhatTheDecisionChanged() {
        let arguments = GtkArguments(appID: "org.example.Mail", id: "inbox", dictionary: dictionary)
        let app = AppIdentity.resolve(arguments.request, process: nil)
        var context = PolicyContext(now: Instant(timeIntervalSince1970: 0))
        var shown = Policy.decide(arguments.request, app: app, context: context).shown
        var forward = arguments.forwarded(id: 5, shown: shown)
        var entries = Dictionary(forward.dictionary.dictionaryEntries.map { ($0.key, $0.value.unboxed) }) { a, _ in a }
        XCTAssertEqual([forward.appID, forward.notificationID], ["org.example.Mail", "inbox"])
        XCTAssertEqual(entries["priority"]?.string, "high", "the app's own priority when it means the level")
        XCTAssertEqual(entries["default-action"]?.string, "app.open")
        XCTAssertEqual(entries["icon"]?.bytes, Variant.tuple([.string("themed"), .boxed(.strings(["mail"]))]).bytes)
        XCTAssertEqual(entries["buttons"]?.children.map { $0.dictionaryEntries.first { $0.key == "action" }?.value.unboxed.string },
                       ["app.reply", "app.delete"], "the destructive one last")
        XCTAssertEqual(entries["buttons"]?.children.last?.dictionaryEntries.first { $0.key == "label" }?.value.unboxed.string,
                       context.settings.general.destructiveMarker + "Delete")

        context.screenLocked = true
        context.settings.general.previews = .whenUnlocked
        shown = Policy.decide(arguments.request, app: app, context: context).shown
        forward = arguments.forwarded(id: 5, shown: shown)
        entries = Dictionary(forward.dictionary.dictionaryEntries.map { ($0.key, $0.value.unboxed) }) { a, _ in a }
        XCTAssertNotEqual(entries["body"]?.string, "from Ada", "a hidden preview is hidden on this door too")
    }
}
