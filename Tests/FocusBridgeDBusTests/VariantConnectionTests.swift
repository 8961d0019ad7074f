import FocusBridgeDBus
import FocusBridgeLoop
import FocusBridgeTestSupport
import Glibc
import XCTest

/// `VariantConnection` (sd-bus with `Variant` bodies) on a real bus, answering as D-Bus clients expect:
/// Introspect from the XML, Properties checked against it, UnknownMethod and InvalidArgs.
final class VariantConnectionTests: XCTestCase {
    private var bus: TestBus!
    static let path = "/org/example/Thing"
    static let xml = """
    <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
    <!-- A comment with <method name="Hidden"/> in it. -->
    <node name="/org/example/Thing">
      <interface name="org.example.Other"><method name="Elsewhere"/></interface>
      <interface name="org.example.Thing">
        <method name='Add'>
          <arg name="a" type="i" direction="in"/>
          <arg name="b" type="i"/>
          <arg name="sum" type="i" direction="out"/>
        </method>
        <method name="Nothing"/>
        <signal name="Changed"><arg type="s"/></signal>
        <property name="Label" type="s" access="read"/>
        <property name="Level" type="u" access="readwrite"/>
      </interface>
    </node>
    """

    override func setUpWithError() throws { bus = try TestBus() }
    override func tearDown() { bus = nil }

    /// A served object and a client; the object's handler records what reached it.
    private func served() throws -> (server: VariantConnection, client: VariantConnection, calls: () -> [String]) {
        let server = try VariantConnection.connect(address: bus.address)
        let client = try VariantConnection.connect(address: bus.address)
        final class Seen { var calls: [String] = [] }
        let seen = Seen()
        try server.export(path: Self.path, interfaceXML: Self.xml, interface: "org.example.Thing") { call in
            seen.calls.append("\(call.interfaceName).\(call.methodName)")
            switch (call.interfaceName, call.methodName) {
            case ("org.example.Thing", "Add"):
                call.reply(.tuple([.int32((call.parameters.child(0).int32 ?? 0) + (call.parameters.child(1).int32 ?? 0))]))
            case ("org.freedesktop.DBus.Properties", "Get"):
                call.reply(.tuple([.boxed(.string("thing"))]))
            case ("org.freedesktop.DBus.Properties", "GetAll"):
                call.reply(.tuple([.dictionary([("Label", .string("thing"))])]))
            default:
                call.reply()
            }
        }
        return (server, client, { seen.calls })
    }

    private func call(_ client: VariantConnection, _ server: VariantConnection, _ interface: String, _ method: String,
                      _ arguments: Variant? = nil, replyType: String? = nil) -> Result<Variant, DBusError> {
        var result: Result<Variant, DBusError>?
        client.call(server.uniqueName, Self.path, interface, method, arguments, replyType: replyType) { result = $0 }
        waitOnMainLoop(until: { result != nil })
        return result!
    }

    func testMethodsAreCheckedAgainstTheXML() throws {
        let (server, client, calls) = try served()
        let sum = try call(client, server, "org.example.Thing", "Add", .tuple([.int32(2), .int32(3)]), replyType: "(i)").get()
        XCTAssertEqual(sum.child(0).int32, 5)
        XCTAssertNoThrow(try call(client, server, "org.example.Thing", "Nothing").get())

        func error(_ result: Result<Variant, DBusError>) -> String? {
            if case .failure(let error) = result { return error.name }
            return nil
        }
        XCTAssertEqual(error(call(client, server, "org.example.Thing", "Add", .tuple([.string("2"), .int32(3)]))),
                       DBusError.invalidArgs)
        XCTAssertEqual(error(call(client, server, "org.example.Thing", "Hidden")), DBusError.unknownMethod)
        XCTAssertEqual(error(call(client, server, "org.example.Thing", "Elsewhere")), DBusError.unknownMethod)
        XCTAssertEqual(error(call(client, server, "org.example.Nope", "Add")), DBusError.unknownMethod)
        // A reply of another type than the caller expects is refused on the caller's side.
        XCTAssertEqual(error(call(client, server, "org.example.Thing", "Add", .tuple([.int32(1), .int32(1)]),
                                  replyType: "(s)")), DBusError.invalidArgs)
        XCTAssertEqual(calls(), ["org.example.Thing.Add", "org.example.Thing.Nothing", "org.example.Thing.Add"])
    }

    func testIntrospectIsTheInterfaceAsItsXMLHasIt() throws {
        let (server, client, _) = try served()
        let xml = try call(client, server, "org.freedesktop.DBus.Introspectable", "Introspect", replyType: "(s)")
            .get().child(0).string ?? ""
        XCTAssertTrue(xml.contains("<interface name=\"org.example.Thing\">"), xml)
        XCTAssertTrue(xml.contains("<interface name=\"org.freedesktop.DBus.Properties\">"), xml)
        XCTAssertTrue(xml.contains("<property name=\"Level\" type=\"u\" access=\"readwrite\"/>"), xml)
        XCTAssertFalse(xml.contains("org.example.Other"), "only the exported interface")
        XCTAssertFalse(xml.contains("Hidden"), "comments are left out")
        // A path above the object lists it as a child node (sd-bus answers there).
        var above: Result<Variant, DBusError>?
        client.call(server.uniqueName, "/org/example", "org.freedesktop.DBus.Introspectable", "Introspect") { above = $0 }
        waitOnMainLoop(until: { above != nil })
        XCTAssertTrue((try above!.get().child(0).string ?? "").contains("<node name=\"Thing\""))
    }

    func testPropertiesAreCheckedAgainstTheXML() throws {
        let (server, client, calls) = try served()
        let properties = "org.freedesktop.DBus.Properties"
        let label = try call(client, server, properties, "Get", .tuple([.string("org.example.Thing"), .string("Label")]),
                             replyType: "(v)").get()
        XCTAssertEqual(label.child(0).unboxed.string, "thing")
        XCTAssertNoThrow(try call(client, server, properties, "GetAll", .tuple([.string("org.example.Thing")])).get())
        XCTAssertNoThrow(try call(client, server, properties, "Set",
                                  .tuple([.string("org.example.Thing"), .string("Level"), .boxed(.uint32(2))])).get())
        for (method, arguments) in [
            ("Get", Variant.tuple([.string("org.example.Thing"), .string("Missing")])),
            ("Get", .tuple([.string("org.example.Nope"), .string("Label")])),
            ("GetAll", .tuple([.string("org.example.Nope")])),
            ("Set", .tuple([.string("org.example.Thing"), .string("Label"), .boxed(.string("x"))])),
            ("Set", .tuple([.string("org.example.Thing"), .string("Level"), .boxed(.string("x"))])),
            ("Get", .tuple([.string("org.example.Thing")])),
        ] {
            guard case .failure(let error) = call(client, server, properties, method, arguments) else {
                XCTFail("\(method) \(arguments.description) was answered")
                continue
            }
            XCTAssertEqual(error.name, DBusError.invalidArgs, "\(method) \(arguments.description)")
        }
        XCTAssertEqual(calls(), ["org.freedesktop.DBus.Properties.Get", "org.freedesktop.DBus.Properties.GetAll",
                                 "org.freedesktop.DBus.Properties.Set"])
    }

    func testSignalsReachSubscribersWithTheirArguments() throws {
        let sender = try VariantConnection.connect(address: bus.address)
        let receiver = try VariantConnection.connect(address: bus.address)
        var heard: [String] = []
        let id = receiver.subscribe(interface: "org.example.Thing", member: "Changed") { signal in
            heard.append("\(signal.sender == sender.uniqueName) \(signal.path) \(signal.parameters.child(0).string ?? "")")
        }
        XCTAssertNotEqual(id, 0)
        // The match rule is installed asynchronously: a round trip to the bus after it.
        XCTAssertEqual(receiver.nameOwner(sender.uniqueName), sender.uniqueName)
        sender.emitSignal(destination: nil, path: Self.path, interface: "org.example.Thing", name: "Changed", .tuple([.string("one")]))
        waitOnMainLoop(until: { !heard.isEmpty })
        XCTAssertEqual(heard, ["true \(Self.path) one"])
        receiver.unsubscribe(id)
    }
}

/// Inotify watches from the main loop, as the GIO monitors reported.
final class FolderWatchTests: XCTestCase {
    private func folder() -> String {
        var template = Array("/tmp/folderwatch-XXXXXX".utf8CString)
        return String(cString: mkdtemp(&template)!)
    }

    private func write(_ path: String, _ text: String) {
        let file = fopen(path, "w")!
        fputs(text, file)
        fclose(file)
    }

    func testAFileWrittenInPlaceOrRenamedOverIsSeen() {
        let dir = folder()
        var changes = 0
        let monitor = FileMonitor(path: dir + "/config.toml") { changes += 1 }
        XCTAssertNotNil(monitor)
        write(dir + "/other.toml", "x")
        write(dir + "/config.toml", "a")
        waitOnMainLoop(until: { changes > 0 }, seconds: 5, "a write was not seen")
        let afterWrite = changes
        write(dir + "/config.toml.tmp", "b")
        rename(dir + "/config.toml.tmp", dir + "/config.toml")
        waitOnMainLoop(until: { changes > afterWrite }, seconds: 5, "an atomic rename was not seen")
        XCTAssertNil(FileMonitor(path: dir + "/missing/config.toml") {}, "a missing folder is not watched")
        withExtendedLifetime(monitor) {}
        for name in ["other.toml", "config.toml"] { unlink(dir + "/" + name) }
        rmdir(dir)
    }

    func testAFoldersEntriesAreNamedAndARenameGivesTheNewName() {
        let dir = folder()
        var names: [String?] = []
        let monitor = DirectoryMonitor(path: dir) { names.append($0) }
        XCTAssertNotNil(monitor)
        write(dir + "/.device.json.tmp", "{}")
        rename(dir + "/.device.json.tmp", dir + "/device.json")
        waitOnMainLoop(until: { names.contains("device.json") }, seconds: 5, "\(names)")
        XCTAssertFalse(names.contains(".device.json.tmp") && names.last == ".device.json.tmp")
        XCTAssertNil(DirectoryMonitor(path: dir + "/missing") { _ in })
        withExtendedLifetime(monitor) {}
        unlink(dir + "/device.json")
        rmdir(dir)
    }
}

/// Child processes through g_spawn, reaped by a GLib child watch.
final class SubprocessTests: XCTestCase {
    func testOutputExitAndUmask() throws {
        let process = try Subprocess(["sh", "-c", "echo \"$GREETING\"; umask"], environment: ["GREETING": "hello"],
                                     captureStandardOutput: true)
        XCTAssertEqual(process.readLine(), "hello")
        XCTAssertNotNil(process.readLine())
        var ending: String?
        process.onExit { ending = $0 }
        waitOnMainLoop(until: { ending != nil }, seconds: 5)
        XCTAssertEqual(ending, "exited with status 0")
        XCTAssertNil(process.processID)
    }

    func testASignalEndsIt() throws {
        let process = try Subprocess(["sleep", "30"])
        XCTAssertNotNil(process.processID)
        process.send(signal: SIGTERM)
        XCTAssertTrue(process.waitForExit(milliseconds: 5000))
        var ending: String?
        process.onExit { ending = $0 }
        MainLoop.iterate(blocking: false)
        XCTAssertEqual(ending, "was killed by signal \(SIGTERM)")
    }

    func testAMissingProgramIsAnError() {
        XCTAssertThrowsError(try Subprocess(["focus-bridge-no-such-program"]))
    }
}
