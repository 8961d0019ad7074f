import FocusBridgeCore
import XCTest

/// `KeptRequest.stored` is written by hand on every `Notify`: its output stays byte for byte what
/// a plain reference writer (`reference`) writes, and what `KeptRequest.read`
/// reads back.
final class KeptRequestStoredTests: XCTestCase {
    /// The reference: texts copied a buffer at a time, nothing clever.
    private func reference(_ kept: KeptRequest) -> String {
        var out: [UInt8] = []
        func quote(_ text: String) {
            let hex = Array("0123456789abcdef".utf8)
            out.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    out.append(UInt8(ascii: "\\"))
                    out.append(byte)
                case 0..<0x20:
                    out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                            hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                default:
                    out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        func key(_ name: String) {
            out.append(out.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
            quote(name)
            out.append(UInt8(ascii: ":"))
        }
        func list(_ items: [String]) {
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                quote(item)
            }
            out.append(UInt8(ascii: "]"))
        }
        key("app-name"); quote(kept.appName)
        key("app-source"); quote(kept.appSource)
        key("app-icon"); quote(kept.appIcon)
        key("actions"); list(kept.actions)
        key("hints"); list(kept.hints)
        key("replaces-id"); out += Array(String(kept.replacesID).utf8)
        key("expire-timeout"); out += Array(String(kept.expireTimeout).utf8)
        key("focus")
        if let focus = kept.focus { quote(focus) } else { out += Array("null".utf8) }
        key("silent"); out += Array((kept.silent ? "true" : "false").utf8)
        key("screen-locked"); out += Array((kept.screenLocked ? "true" : "false").utf8)
        key("trace"); list(kept.trace)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private let texts = [
        "", "bench", "Slack", "quote \" and backslash \\ inside", "\"", "\\", "\\\\\"\"",
        "tab\tnew line\ncarriage\rbell\u{07}nul\u{00}esc\u{1B}unit\u{1F}", "\u{7F} delete is not escaped",
        "é ü ß 日本語 👨‍👩‍👧‍👦 e\u{301}", "/ slash and </script>", "mixed \"é\"\n\\日本\u{01}",
        String(repeating: "long text ", count: 60), String(repeating: "\"\\\n", count: 40),
        "ends with escape\n", "\nstarts with escape",
    ] + (0..<9).flatMap { offset in
        // What needs an escape at each place of an eight-byte word, among bytes that do not.
        ["\"", "\\", "\n", "\u{1F}", "\u{00}", "!", "#", "[", "]", "\u{20}", "é"].map { text in
            String(repeating: "é", count: offset / 2) + String(repeating: "a", count: offset % 2) + text + "ü ~ long tail"
        }
    }

    private func samples() -> [KeptRequest] {
        var kept: [KeptRequest] = []
        let numbers: [(UInt32, Int32)] = [(0, -1), (1, 0), (42, 5000), (UInt32.max, Int32.min), (4_000_000_000, Int32.max),
                                          (10, -10), (9, 9), (100, -100)]
        for (index, text) in texts.enumerated() {
            let other = texts[(index + 3) % texts.count]
            let (id, timeout) = numbers[index % numbers.count]
            kept.append(KeptRequest(appName: text, appSource: other, appIcon: texts[(index + 5) % texts.count],
                                    actions: index % 2 == 0 ? [] : ["default=" + text, other + "=x"],
                                    hints: index % 3 == 0 ? [] : ["string:category:" + text, "byte:urgency:2", "string:x:" + other],
                                    replacesID: id, expireTimeout: timeout,
                                    focus: index % 4 == 0 ? nil : (index % 4 == 1 ? "" : other),
                                    silent: index % 2 == 1, screenLocked: index % 3 == 1,
                                    trace: index % 5 == 0 ? [] : ["app: " + text, "level: " + other, "decision: forward"]))
        }
        kept.append(KeptRequest(appName: "bench", appSource: "app-name"))
        return kept
    }

    func testTheStoredFormIsByteForByteTheReferencesOne() throws {
        for kept in samples() {
            let stored = try XCTUnwrap(kept.stored)
            XCTAssertEqual(Array(stored.utf8), Array(reference(kept).utf8), "\(kept)")
            XCTAssertEqual(KeptRequest.read(stored), kept)
        }
    }

    func testHintTextsKeepTheirOrder() {
        let hints: [String: HintValue] = [
            "zeta": .string("z"), "urgency": .integer(2), "x-focus-level": .string("quiet"), "alpha": .bool(true),
            "category": .string("im.received"), "x-focus-a": .string("a"), "desktop-entry": .string("org.app"),
            "value": .integer(40), "b:colon": .string("left out"), "": .string("left out"), "image-data": .other(signature: "(iiibiiay)"),
            "d": .double(1.5), "list": .strings(["one", "two,three", "four"]),
        ]
        XCTAssertEqual(KeptRequest.hintTexts(hints), [
            "string:category:im.received", "string:desktop-entry:org.app", "byte:urgency:2", "int:value:40",
            "string:x-focus-a:a", "string:x-focus-level:quiet", "boolean:alpha:true", "double:d:1.5",
            "strings:list:one,four", "string:zeta:z",
        ])
    }
}
