import FocusBridgeDBus
import FocusBridgeLoop
import Foundation

/// A notification daemon that shows nothing and answers at once: what the bridge costs is then
/// all that is measured.
enum NullDaemon {
    static let xml = """
    <node><interface name="org.freedesktop.Notifications">
      <method name="Notify"><arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
        <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
        <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/><arg type="u" direction="out"/></method>
      <method name="CloseNotification"><arg type="u" direction="in"/></method>
      <method name="GetCapabilities"><arg type="as" direction="out"/></method>
      <method name="GetServerInformation"><arg type="s" direction="out"/><arg type="s" direction="out"/>
        <arg type="s" direction="out"/><arg type="s" direction="out"/></method>
      <method name="InvokeOnLastDigest"><arg type="s" direction="in"/></method>
      <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
    </interface></node>
    """

    static func run(address: String) throws {
        let bus = try VariantConnection.connect(address: address)
        var next: UInt32 = 1
        var lastDigest: (id: UInt32, sender: String)?
        try bus.export(path: "/org/freedesktop/Notifications", interfaceXML: xml, interface: "org.freedesktop.Notifications") { call in
            switch call.methodName {
            case "Notify":
                next += 1
                if call.parameters.child(3).string == "Notification Summary" { lastDigest = (next, call.sender) }
                call.reply(.tuple([.uint32(next)]))
            case "InvokeOnLastDigest":
                // The bench clicks the digest's button, as a user would.
                if let lastDigest {
                    bus.emitSignal(destination: lastDigest.sender, path: "/org/freedesktop/Notifications",
                                   interface: "org.freedesktop.Notifications", name: "ActionInvoked",
                                   .tuple([.uint32(lastDigest.id), call.parameters.child(0)]))
                }
                call.reply()
            case "GetCapabilities":
                call.reply(.tuple([.strings(["actions", "body"])]))
            case "GetServerInformation":
                call.reply(.tuple([.string("null"), .string("bench"), .string("1"), .string("1.2")]))
            default:
                call.reply()
            }
        }
        guard try bus.requestName("org.freedesktop.Notifications") == .primaryOwner else { throw BenchError("name taken") }
        MainLoop.onSignal(SIGTERM) { MainLoop.quit() }
        MainLoop.run()
    }
}
