import CGLib
import FocusBridgeDBus
import FocusBridgeLoop
import FocusBridgeTestSupport
import Glibc
import XCTest

/// The sd-bus layer (`MessageConnection`, `BusMessage`, `IncomingCall`) on a real bus and the real
/// GLib main loop.
final class SdBusTests: XCTestCase {
    private var bus: TestBus!
    static let path = "/org/example/Test"

    override func setUpWithError() throws { bus = try TestBus() }
    override func tearDown() { bus = nil }

    /// A message of our own, sealed so that it can be read back.
    private func sealed(_ connection: MessageConnection, _ build: (BusMessage) throws(DBusError) -> Void) throws -> BusMessage {
        let message = try connection.methodCall(":1.0", Self.path, "org.example.Test", "Echo")
        try build(message)
        try message.sealForReading()
        return message
    }

    func testTypedValuesGoThereAndBackThroughTheBus() throws {
        let server = try MessageConnection.connect(address: bus.address)
        let client = try MessageConnection.connect(address: bus.address)
        var seen: [String] = []
        try server.serve(path: Self.path) { message in
            guard message.isMethodCall(interface: "org.example.Test", member: "Echo") else { return false }
            let call = IncomingCall(message)
            do throws(DBusError) {
                let text = try message.readString()
                let number = try message.readUInt32()
                let signed = try message.readInt32()
                let list = try message.readStrings()
                var hints: [String: Scalar] = [:]
                try message.readDictionary { key throws(DBusError) in hints[key] = try message.readValue(as: Scalar.self).value }
                seen = [text, String(number), String(signed), list.joined(separator: ","),
                        hints.keys.sorted().map { "\($0)=\(hints[$0]!)" }.joined(separator: " ")]
                call.reply { reply throws(DBusError) in
                    try reply.append(text + "!")
                    try reply.append(number + 1)
                    try reply.append(strings: list.reversed())
                }
            } catch {
                call.fail(error)
            }
            return true
        }
        let message = try client.methodCall(server.uniqueName, Self.path, "org.example.Test", "Echo")
        try message.append("héllo")
        try message.append(UInt32(41))
        try message.append(Int32(-7))
        try message.append(strings: ["a", "b", ""])
        try message.open("a", "{sv}")
        try message.appendEntry("byte", signature: "y") { m throws(DBusError) in try m.append(UInt8(2)) }
        try message.appendEntry("flag", signature: "b") { m throws(DBusError) in try m.append(true) }
        try message.appendEntry("pid", signature: "x") { m throws(DBusError) in try m.append(Int64(-42)) }
        try message.appendEntry("ratio", signature: "d") { m throws(DBusError) in try m.append(0.5) }
        try message.appendEntry("list", signature: "as") { m throws(DBusError) in try m.append(strings: ["x"]) }
        try message.appendEntry("image", signature: "(iiibiiay)") { m throws(DBusError) in
            try m.append(.tuple([.int32(1), .int32(1), .int32(4), .bool(true), .int32(8), .int32(4), .byteArray([1, 2, 3, 4])]))
        }
        try message.close()
        var reply: Result<BusMessage, DBusError>?
        client.call(message, timeoutMilliseconds: 5000) { reply = $0 }
        waitOnMainLoop(until: { reply != nil })
        let answer = try reply!.get()
        XCTAssertEqual(try answer.readString(), "héllo!")
        XCTAssertEqual(try answer.readUInt32(), 42)
        XCTAssertEqual(try answer.readStrings(), ["", "b", "a"])
        XCTAssertEqual(seen, ["héllo", "41", "-7", "a,b,", "byte=integer(2) flag=bool(true) image=other(signature: \"(iiibiiay)\") "
                              + "list=strings([\"x\"]) pid=integer(-42) ratio=double(0.5)"])
    }

    func testReadingTheWrongTypeOrPastTheEndIsAnErrorNotATrap() throws {
        let connection = try MessageConnection.connect(address: bus.address)
        let message = try sealed(connection) { m throws(DBusError) in
            try m.append("text")
            try m.append(UInt32(3))
        }
        XCTAssertThrowsError(try message.readUInt32())
        XCTAssertThrowsError(try message.readStrings())
        XCTAssertEqual(try message.readString(), "text")
        XCTAssertThrowsError(try message.readString())
        XCTAssertThrowsError(try message.readDictionary { _ throws(DBusError) in })
        XCTAssertEqual(try message.readUInt32(), 3)
        XCTAssertThrowsError(try message.readUInt32(), "past the end")
        XCTAssertThrowsError(try message.readVariant(), "past the end")
        XCTAssertThrowsError(try message.readValue(as: Scalar.self), "past the end")
        // A value of the wrong shape for its signature cannot even be appended.
        let other = try connection.methodCall(":1.0", Self.path, "org.example.Test", "Echo")
        XCTAssertThrowsError(try other.close(), "nothing open")
        XCTAssertThrowsError(try other.appendObjectPath("not a path"))
    }

    func testVariantsConvertBothWaysExactly() throws {
        let connection = try MessageConnection.connect(address: bus.address)
        let values: [Variant] = [
            Variant.parse("('app', uint32 7, '', 'Sum', 'Body', ['a', 'A'], {'image-data': <(1, 1, 4, true, 8, 4, [byte 1, 2, 3, 4])>, "
                          + "'b': <byte 3>, 'i': <-5>, 't': <true>, 's': <'x'>, 'd': <2.5>, 'as': <['p', 'q']>, "
                          + "'nested': <{'k': <[(int16 1, uint16 2, int64 3, uint64 4, objectpath '/a', signature 'sv')]>}>, "
                          + "'empty': <@a{sv} {}>, 'vv': <<<'deep'>>>, 'ad': <[1.5, 2.5]>, 'ab': <[true, false]>}, -1)",
                          type: "(susssasa{sv}i)")!,
        ]
        for value in values {
            let message = try sealed(connection) { m throws(DBusError) in try m.appendBody(value) }
            let read = try message.readBody()
            XCTAssertEqual(read.typeString, value.typeString)
            XCTAssertEqual(read.bytes, value.bytes, read.description)
        }
    }

    func testFileDescriptorsTravelBesideAConvertedBody() throws {
        let connection = try MessageConnection.connect(address: bus.address)
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]); close(ends[1]) }
        let body = Variant.tuple([.string("x"), Variant.parse("handle 0")!])
        let unsent = try sealed(connection) { m throws(DBusError) in try m.append("y") }
        XCTAssertNotNil(unsent)
        let message = try connection.methodCall(":1.0", Self.path, "org.example.Test", "Echo")
        XCTAssertThrowsError(try message.appendBody(body), "a handle without its descriptor")
        let withFD = try sealed(connection) { m throws(DBusError) in try m.appendBody(body, fileDescriptors: [ends[0]]) }
        var fds: [Int32] = []
        let read = try withFD.readBody(fileDescriptors: &fds)
        XCTAssertEqual(read.description, "('x', handle 0)")
        XCTAssertEqual(fds.count, 1)
        XCTAssertNotEqual(fds.first, ends[0], "sd-bus keeps a duplicate of its own")
        XCTAssertEqual(write(ends[1], "z", 1), 1)
        var byte: UInt8 = 0
        XCTAssertEqual(Glibc.read(fds[0], &byte, 1), 1)
        XCTAssertEqual(byte, UInt8(ascii: "z"), "the same pipe")
    }

    func testKeptEntriesAreCopiedByteForByteAndTheOthersLeft() throws {
        let connection = try MessageConnection.connect(address: bus.address)
        let hints = Variant.parse("{'image-data': <(1, 1, 4, true, 8, 4, [byte 1, 2, 3, 4])>, 'x-focus-level': <'active'>, "
                                  + "'urgency': <byte 2>, 'odd': <(1, [<'v'>])>}", type: "a{sv}")!
        let source = try sealed(connection) { m throws(DBusError) in
            try m.append("before")
            try m.append(hints)
            try m.append(Int32(9))
        }
        XCTAssertEqual(try source.readString(), "before")
        let target = try connection.methodCall(":1.0", Self.path, "org.example.Test", "Echo")
        try target.open("a", "{sv}")
        try target.appendEntries(copying: source) { !$0.hasPrefix("x-focus-") && $0 != "urgency" }
        try target.appendEntry("urgency", signature: "y") { m throws(DBusError) in try m.append(UInt8(1)) }
        try target.close()
        XCTAssertEqual(try source.readInt32(), 9, "the source is left after the dictionary")
        try target.sealForReading()
        let copied = try target.readVariant()
        XCTAssertEqual(copied.description, "{'image-data': <(1, 1, 4, true, 8, 4, [byte 0x01, 0x02, 0x03, 0x04])>, "
                       + "'odd': <(1, [<'v'>])>, 'urgency': <byte 0x01>}")
    }

    func testNamesSignalsAndTimeOuts() throws {
        let owner = try MessageConnection.connect(address: bus.address)
        let watcher = try MessageConnection.connect(address: bus.address)
        var owners: [String?] = []
        try watcher.watchName("org.example.Owned") { owners.append($0) }
        waitOnMainLoop(until: { owners.count == 1 })
        XCTAssertEqual(owners, [nil])
        XCTAssertEqual(try owner.requestName("org.example.Owned"), .primaryOwner)
        XCTAssertEqual(try watcher.requestName("org.example.Owned"), .exists)
        waitOnMainLoop(until: { owners.count == 2 })
        XCTAssertEqual(owners.last, owner.uniqueName)

        var signals: [String] = []
        try watcher.match("type='signal',interface='org.example.Test'") { signal in
            signals.append("\(signal.member ?? "") \((try? signal.readString()) ?? "?") from \(signal.sender == owner.uniqueName)")
        }
        // The match is installed asynchronously: a call after it is answered after it.
        var pinged = false
        let ping = try watcher.methodCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Peer", "Ping")
        watcher.call(ping) { _ in pinged = true }
        waitOnMainLoop(until: { pinged })
        let signal = try owner.signal(Self.path, "org.example.Test", "Told", destination: watcher.uniqueName)
        try signal.append("just you")
        try owner.send(signal)
        waitOnMainLoop(until: { !signals.isEmpty })
        XCTAssertEqual(signals, ["Told just you from true"])

        // Unanswered: the call times out locally.
        var held: [IncomingCall] = []
        try owner.serve(path: Self.path) { message in held.append(IncomingCall(message)); return true }
        var result: Result<BusMessage, DBusError>?
        watcher.call(try watcher.methodCall("org.example.Owned", Self.path, "org.example.Test", "Wait"),
                     timeoutMilliseconds: 200) { result = $0 }
        waitOnMainLoop(until: { result != nil })
        guard case .failure(let error)? = result else { return XCTFail("answered: \(String(describing: result))") }
        XCTAssertEqual(error.name, DBusError.noReply)
        XCTAssertFalse(error.isRemote)
        // A call dropped without an answer is answered with an error.
        result = nil
        watcher.call(try watcher.methodCall("org.example.Owned", Self.path, "org.example.Test", "Drop"),
                     timeoutMilliseconds: 5000) { result = $0 }
        waitOnMainLoop(until: { held.count == 2 })
        held.removeAll()
        waitOnMainLoop(until: { result != nil })
        guard case .failure(let dropped)? = result else { return XCTFail("answered") }
        XCTAssertEqual(dropped.name, DBusError.failed)
        XCTAssertTrue(dropped.isRemote)

        var lost: [String] = []
        try owner.onNameLost { lost.append($0) }
        owner.releaseName("org.example.Owned", timeoutMilliseconds: 1000)
        waitOnMainLoop(until: { !lost.isEmpty && owners.last == .some(nil) })
        XCTAssertEqual(lost, ["org.example.Owned"])
    }

    /// `DispatchEnd`: work a call leaves for the end of the dispatch runs before the loop turns
    /// again (before idle work scheduled earlier); outside a dispatch it waits for an idle loop.
    func testWorkLeftForTheEndOfTheDispatchRunsBeforeTheLoopTurnsAgain() throws {
        let server = try MessageConnection.connect(address: bus.address)
        let client = try MessageConnection.connect(address: bus.address)
        var order: [String] = []
        try server.serve(path: Self.path) { message in
            let call = IncomingCall(message)
            MainLoop.whenIdle { order.append("idle") }
            DispatchEnd.schedule { order.append("end of dispatch"); call.reply { _ throws(DBusError) in } }
            order.append("handled")
            return true
        }
        var answered = false
        client.call(try client.methodCall(server.uniqueName, Self.path, "org.example.Test", "Go")) { _ in answered = true }
        waitOnMainLoop(until: { answered && order.count == 3 })
        XCTAssertEqual(order, ["handled", "end of dispatch", "idle"])

        order = []
        MainLoop.whenIdle { order.append("idle") }
        DispatchEnd.schedule { order.append("scheduled outside a dispatch") }
        waitOnMainLoop(until: { order.count == 2 })
        XCTAssertEqual(order, ["idle", "scheduled outside a dispatch"])
    }

    /// A nested main loop run by a call's handler does not enter the same connection again (sd-bus
    /// refuses to process recursively, which would read as a broken connection): the next call
    /// waits until the handler returns, and the connection stays open.
    func testANestedLoopInAHandlerLeavesItsOwnConnectionAlone() throws {
        let server = try MessageConnection.connect(address: bus.address)
        let client = try MessageConnection.connect(address: bus.address)
        let other = try MessageConnection.connect(address: bus.address)
        var closed = false
        server.onClose { closed = true }
        var handled: [String] = []
        try server.serve(path: Self.path) { message in
            let member = message.member ?? ""
            let call = IncomingCall(message)
            handled.append(member)
            if member == "First" {
                // Both calls are read by now; wait in a nested loop for an unrelated reply.
                var pinged = false
                let ping = try? other.methodCall("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Peer", "Ping")
                other.call(ping!) { _ in pinged = true }
                while !pinged { MainLoop.iterate(blocking: true) }
                handled.append("nested loop done")
            }
            call.reply { _ throws(DBusError) in }
            return true
        }
        var replies = 0
        client.call(try client.methodCall(server.uniqueName, Self.path, "org.example.Test", "First")) { if case .success = $0 { replies += 1 } }
        client.call(try client.methodCall(server.uniqueName, Self.path, "org.example.Test", "Second")) { if case .success = $0 { replies += 1 } }
        waitOnMainLoop(until: { replies == 2 || closed })
        XCTAssertFalse(closed)
        XCTAssertEqual(replies, 2)
        XCTAssertEqual(handled, ["First", "nested loop done", "Second"])
    }

    func testAClosedConnectionFailsItsCallsAndSaysSo() throws {
        let client = try MessageConnection.connect(address: bus.address)
        let server = try MessageConnection.connect(address: bus.address)
        var held: [IncomingCall] = []
        try server.serve(path: Self.path) { message in held.append(IncomingCall(message)); return true }
        var result: Result<BusMessage, DBusError>?
        var closed = false
        client.onClose { closed = true }
        client.call(try client.methodCall(server.uniqueName, Self.path, "org.example.Test", "Wait"),
                    timeoutMilliseconds: Int32.max) { result = $0 }
        waitOnMainLoop(until: { held.count == 1 })
        bus = nil // the bus daemon ends
        waitOnMainLoop(until: { result != nil && closed })
        guard case .failure(let error)? = result else { return XCTFail("answered") }
        XCTAssertEqual(error.name, DBusError.disconnected)
        XCTAssertTrue(client.isClosed)
    }
}

/// What a reader of variants makes of them in this test (the bridge's is the core's `HintValue`).
enum Scalar: BusScalarValue, Equatable {
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case double(Double)
    case strings([String])
    case other(signature: String)
}
