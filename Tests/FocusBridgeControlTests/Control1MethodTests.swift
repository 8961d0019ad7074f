import FocusBridgeControl
import Foundation
import XCTest

/// `Control1Method` against the interface's XML in dbus/org.focusbridge.Control1.xml: every
/// method in one is in the other, with the same in- and out-signatures. The server embeds and
/// serves that file's text (EmbeddedFilesTests, in FocusBridgeServerTests, checks it is the
/// same byte for byte), so the list is checked against what is served without this target
/// depending on the server.
final class Control1MethodTests: XCTestCase {
    /// dbus/org.focusbridge.Control1.xml, read from the repository this file is in.
    static func controlXML() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("dbus/org.focusbridge.Control1.xml"), encoding: .utf8)
    }

    /// A method of the XML: its name and the types of its in- and out-arguments, concatenated.
    struct Method: Equatable, CustomStringConvertible {
        let name: String
        let inSignature: String
        let outSignature: String
        var description: String { "\(name)(\(inSignature)) -> (\(outSignature))" }
    }

    /// The methods and signals of `interface` in `xml` (a reader for this XML's shape alone: one
    /// element per tag, attributes in double quotes).
    static func members(of interface: String, in xml: String) -> (methods: [Method], signals: [String]) {
        var text = xml
        while let open = text.range(of: "<!--"), let close = text.range(of: "-->", range: open.upperBound..<text.endIndex) {
            text.removeSubrange(open.lowerBound..<close.upperBound)
        }
        guard let start = text.range(of: "<interface name=\"\(interface)\">"),
              let end = text.range(of: "</interface>", range: start.upperBound..<text.endIndex) else { return ([], []) }
        var methods: [Method] = []
        var signals: [String] = []
        var current: (name: String, in: String, out: String)?
        for tag in text[start.upperBound..<end.lowerBound].split(separator: "<").map({ "<" + $0 }) {
            guard let close = tag.firstIndex(of: ">") else { continue }
            let element = String(tag[..<close])
            func attribute(_ name: String) -> String? {
                guard let range = element.range(of: " \(name)=\"") else { return nil }
                return String(element[range.upperBound...].prefix { $0 != "\"" })
            }
            if element.hasPrefix("<method ") {
                current = (attribute("name") ?? "", "", "")
                if element.hasSuffix("/") {
                    methods.append(Method(name: current!.name, inSignature: "", outSignature: ""))
                    current = nil
                }
            } else if element.hasPrefix("</method") {
                if let done = current { methods.append(Method(name: done.name, inSignature: done.in, outSignature: done.out)) }
                current = nil
            } else if element.hasPrefix("<arg "), current != nil {
                let type = attribute("type") ?? ""
                if attribute("direction") == "out" { current!.out += type } else { current!.in += type }
            } else if element.hasPrefix("<signal "), let name = attribute("name") {
                signals.append(name)
            }
        }
        return (methods, signals)
    }

    func testTheListIsTheMethodsTheServerServes() throws {
        let served = Self.members(of: ControlNames.interface, in: try Self.controlXML())
        XCTAssertFalse(served.methods.isEmpty, "no \(ControlNames.interface) in dbus/org.focusbridge.Control1.xml")
        let listed = Control1Method.allCases.map {
            Method(name: $0.rawValue, inSignature: $0.inSignature, outSignature: $0.outSignature)
        }
        for method in served.methods where !listed.contains(method) {
            XCTFail("the XML has \(method); Control1Method has \(listed.first { $0.name == method.name }?.description ?? "no such method")")
        }
        for method in listed where !served.methods.contains(method) {
            XCTFail("Control1Method has \(method); the XML has \(served.methods.first { $0.name == method.name }?.description ?? "no such method")")
        }
        XCTAssertEqual(served.methods.count, Set(served.methods.map(\.name)).count, "a method twice in the XML")
        XCTAssertEqual(served.signals, [ControlNames.stateChanged])
    }

    /// The reader itself: a method missing on either side is seen.
    func testTheReaderSeesEachMethodAndItsArguments() {
        let xml = """
            <node><interface name="x.Other"><method name="Elsewhere"/></interface>
            <interface name="x.Y">
              <!-- <method name="Commented"/> -->
              <method name="A"><arg name="a" type="u" direction="in"/><arg name="b" type="as"/>
                <arg name="json" type="s" direction="out"/></method>
              <method name="B"/>
              <signal name="S"><arg name="s" type="s"/></signal>
            </interface></node>
            """
        let members = Self.members(of: "x.Y", in: xml)
        XCTAssertEqual(members.methods, [Method(name: "A", inSignature: "uas", outSignature: "s"),
                                         Method(name: "B", inSignature: "", outSignature: "")])
        XCTAssertEqual(members.signals, ["S"])
    }
}
