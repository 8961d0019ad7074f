import FocusBridgeCore
import FocusBridgeDBus
@testable import FocusBridgeServer
import XCTest

/// The standard interface on the wire (`NotificationsInterface.swift`), both directions.
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
        XCTAssertNil(NotifyArguments(storedType: "(s)", bytes: Variant.tuple([.string("x")]).bytes))
    }

    func testTheForwardedNotifyKeepsTheClientsHintsByteForByte() {
        let image = Variant.boxed(.string("/tmp/picture.png"))
        let arguments = NotifyArguments(notify(hints: [("image-path", image), ("x-focus-relevance", .boxed(.double(1))),
                                                       ("urgency", .boxed(.byte(0)))]))
        let request = arguments.request
        let app = AppIdentity(key: "Mail", source: .appName)
        let shown = Policy.present(request, app: app, context: PolicyContext())
        let forwarded = arguments.forwarded(id: 9, request: request, shown: shown, process: nil)
        let message = forwarded.arguments(replacing: 3)
        XCTAssertEqual(message.typeString, NotificationsInterface.notifySignature)
        XCTAssertEqual(message.child(1).uint32, 3)
        XCTAssertEqual(message.child(3).string, "Hi")
        let hints = Dictionary(message.child(6).dictionaryEntries.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(hints["image-path"]?.bytes, image.bytes)
        XCTAssertNil(hints["x-focus-relevance"], "the bridge's own hints stay with the bridge")
        XCTAssertEqual(hints["urgency"]?.unboxed.integer, Int64(shown.presentation.urgency))
    }

    func testTheDaemonsSignalsAreReadAndAnUnknownReasonPassesThrough() {
        func signal(_ member: String, _ arguments: Variant) -> DaemonSignal? {
            DaemonSignal(Signal(sender: ":1.5", path: NotificationsInterface.path, interface: NotificationsInterface.name,
                                member: member, parameters: arguments))
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
