import FocusBridgeJSON
import Foundation
import XCTest

/// FocusBridge's own JSON against Foundation's: values written byte for byte as `JSONEncoder`
/// with `.sortedKeys` writes them and read back by both decoders; the parser against
/// `JSONSerialization` on a corpus of valid and invalid texts; and malformed, deep and huge input
/// refused, never trapped on. Core's reports against Foundation: `ReportsFoundationTests`.
final class JSONTests: XCTestCase {
    private func foundationText(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func testNumbersAreExactAndReadBackIdentically() throws {
        let doubles: [Double] = [0, -0.0, 1, 0.1, 1.0 / 3, 1e-7, 1e16, 123_456_789.125, 5e-324, .greatestFiniteMagnitude,
                                 -1.5e300, 978_307_200.000_001, 1_795_000_000.125]
        XCTAssertEqual(JSONText.encode(doubles), try foundationText(doubles))
        XCTAssertEqual(try JSONText.decode([Double].self, from: JSONText.encode(doubles)).map(\.bitPattern), doubles.map(\.bitPattern))
        let integers: [Int64] = [.max, .min, 0, -1, 1 << 53 + 1]
        XCTAssertEqual(try JSONText.decode([Int64].self, from: JSONText.encode(integers)), integers)
        XCTAssertEqual(try JSONText.decode([UInt64].self, from: "[18446744073709551615]"), [.max])
        XCTAssertEqual(try JSONText.decode([Int].self, from: "[1.0, 1e2, -0]"), [1, 100, 0])
        for bad in ["[1.5]", "[9223372036854775808]", "[\"1\"]", "[true]", "[null]"] {
            XCTAssertThrowsError(try JSONText.decode([Int].self, from: bad), bad)
        }
        XCTAssertThrowsError(try JSONText.decode([UInt8].self, from: "[256]"))
        XCTAssertThrowsError(try JSONText.decode([Double].self, from: "[1e400]"))
        XCTAssertEqual(JSONText.encode([Double.nan]), "null", "not JSON: the report is null")
        XCTAssertEqual(JSONText.encode([Float(0.1), 1]), try foundationText([Float(0.1), 1]))
    }

    func testStringsAndKeysAreEscapedAsFoundationDid() throws {
        let text = String((0..<0x80).map { Character(Unicode.Scalar(UInt8($0))) }) + "é😀\u{2028}\u{FEFF}/"
        let dictionary = [text: 1, "b": 2, "B": 3, "a10": 4, "a9": 5, "_": 6, "-": 7, "é": 8]
        XCTAssertEqual(JSONText.encode(dictionary), try foundationText(dictionary))
        XCTAssertEqual(try JSONText.decode([String: Int].self, from: JSONText.encode(dictionary)), dictionary)
        XCTAssertEqual(JSONText.quote("say \"hi\"\n"), "\"say \\\"hi\\\"\\n\"")
        XCTAssertEqual(try JSONText.decode(String.self, from: #""\ud83d\ude00 \u00e9 \/ \b\f""#), "😀 é / \u{8}\u{C}")
    }

    func testOptionalsAndMissingKeys() throws {
        struct Sample: Codable, Equatable {
            var a: Int?
            var b: [String?]
            var c: [String: Double]
            var d: Nested?
            struct Nested: Codable, Equatable { var x: Bool }
        }
        let sample = Sample(a: nil, b: ["x", nil], c: ["k": 1.5], d: .init(x: true))
        XCTAssertEqual(JSONText.encode(sample), try foundationText(sample))
        XCTAssertEqual(try JSONText.decode(Sample.self, from: JSONText.encode(sample)), sample)
        XCTAssertEqual(try JSONText.decode(Sample.self, from: #"{"a": null, "b": [], "c": {}}"#), Sample(a: nil, b: [], c: [:], d: nil))
        XCTAssertEqual(try JSONText.decode(Sample.self, from: #"{"b": [], "c": {}, "a": 1, "a": 2}"#).a, 2, "the last value of a key")
        XCTAssertThrowsError(try JSONText.decode(Sample.self, from: #"{"a": 1}"#)) { error in
            guard case DecodingError.keyNotFound(let key, _)? = error as? DecodingError else { return XCTFail("\(error)") }
            XCTAssertEqual(key.stringValue, "b")
        }
        XCTAssertThrowsError(try JSONText.decode(Sample.self, from: #"{"b": [1], "c": {}}"#))
        XCTAssertThrowsError(try JSONText.decode(Sample.self, from: #"{"b": [], "c": {}, "d": {"x": 1}}"#))
        XCTAssertThrowsError(try JSONText.decode(Sample.self, from: #"[]"#))
    }

    // MARK: The parser against JSONSerialization

    static let valid = [
        "{}", "[]", "0", "-0", "1", "-1", "1.5", "1e5", "1E+5", "1e-5", "-0.0e0", "123456789012345678901234567890",
        "\"\"", "\"a\"", "true", "false", "null", " [1 , 2 ]\n", "\t{\"a\" :\r\n1}", "[[[[[]]]]]",
        #"{"a":{"b":[1,{"c":null}]}}"#, #"["\u0000"]"#, #"["\uD834\uDD1E"]"#, #"["\u00e9\u00E9"]"#, #"["é😀"]"#,
        #"{"a":1,"a":2}"#, #"["\"\\\/\b\f\n\r\t"]"#, "[1e308]", "[-1e-400]", "[0.000000000000000000001]",
        #"{"":0}"#, "[\"\u{7F}\"]", #"[1,[2,[3,[4]]],{"x":{"y":{}}}]"#,
    ]

    static let invalid = [
        "", " ", "{", "}", "[", "]", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{a:1}", "{'a':1}", "['a']",
        "01", "-", "+1", "1.", ".1", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity", "tru", "nul", "True",
        "[1 2]", "{\"a\":1 \"b\":2}", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"a\nb\"", "\"\t\"",
        "[1]]", "{}{}", "1 2", "[\"\\uDD1E\"]", "[\"\\uD834\"]", "[\"\\uD834\\u0041\"]", "[1e400]", "[-1e400]",
        "\u{FEFF}[1]", "/* c */ []", "[] // c", "[1,,2]", "{\"a\"::1}", "[\"\\\"]",
    ]

    private func foundationParses(_ bytes: [UInt8]) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
    }

    private func same(_ ours: JSONValue, _ theirs: Any) -> Bool {
        switch ours {
        case .null: return theirs is NSNull
        case .bool(let flag): return (theirs as? Bool) == flag
        case .number(let text):
            // Foundation reads long numbers to a Decimal first: the last digit may differ.
            guard let number = (theirs as? NSNumber)?.doubleValue, let ours = Double(text) else { return false }
            return number == ours || abs(number - ours) <= abs(ours) * 1e-15
        case .string(let text): return (theirs as? String) == text
        case .array(let items):
            guard let list = theirs as? [Any], list.count == items.count else { return false }
            return zip(items, list).allSatisfy { same($0, $1) }
        case .object(let members):
            guard let dictionary = theirs as? [String: Any], dictionary.count == Set(members.map(\.key)).count else { return false }
            return members.allSatisfy { member in dictionary[member.key].map { same(ours[member.key]!, $0) } ?? false }
        }
    }

    func testTheCorpusAgreesWithJSONSerialization() throws {
        for text in Self.valid {
            let ours = try JSONParser.parse(text)
            let theirs = try XCTUnwrap(foundationParses(Array(text.utf8)), text)
            XCTAssertTrue(same(ours, theirs), text)
            XCTAssertEqual(try JSONParser.parse(JSONWriter.write(ours)), ours, "written and read back: \(text)")
        }
        for text in Self.invalid where !text.hasPrefix("\u{FEFF}") {
            XCTAssertThrowsError(try JSONParser.parse(text), text)
            if !Self.hasTrailingComma(Array(text.utf8)) {
                XCTAssertNil(foundationParses(Array(text.utf8)), "Foundation too refuses \(text)")
            }
        }
        // RFC 8259 asks for UTF-8 and allows refusing a byte order mark; Foundation skips one.
        XCTAssertThrowsError(try JSONParser.parse("\u{FEFF}[1]"))
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x5B, 0x80, 0x5D]] {
            XCTAssertThrowsError(try JSONParser.parse(bytes), "invalid UTF-8 \(bytes)")
        }
    }

    /// A comma before `]` or `}`: not JSON (RFC 8259), but Foundation's parser takes it.
    static func hasTrailingComma(_ bytes: [UInt8]) -> Bool {
        var inString = false, escaped = false, comma = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true; comma = false
            case UInt8(ascii: ","): comma = true
            case UInt8(ascii: "]"), UInt8(ascii: "}"): if comma { return true }
            case 0x20, 0x09, 0x0A, 0x0D: break
            default: comma = false
            }
        }
        return false
    }

    /// Each valid text changed at each byte (a deterministic walk): ours and Foundation's agree
    /// on which are JSON and what they say, except for the trailing commas Foundation takes.
    func testMutationsAgreeWithJSONSerialization() {
        let replacements: [UInt8] = Array("{}[],:\"\\ 0-.eE1atfnu".utf8) + [0x7F, 0x80, 0xC3, 0x0A]
        var disagreements: [String] = []
        for text in Self.valid {
            let bytes = Array(text.utf8)
            for index in 0...bytes.count {
                for replacement in replacements {
                    for variant in [Array(bytes[..<index]) + [replacement] + Array(bytes[min(index + 1, bytes.count)...]),
                                    Array(bytes[..<index]) + [replacement] + Array(bytes[index...]),
                                    Array(bytes[..<index])] {
                        let ours = try? JSONParser.parse(variant)
                        let theirs = foundationParses(variant)
                        if ours == nil && theirs != nil && Self.hasTrailingComma(variant) { continue }
                        if (ours == nil) != (theirs == nil) || (ours != nil && !same(ours!, theirs!)) {
                            disagreements.append(String(decoding: variant, as: UTF8.self))
                        }
                    }
                }
            }
        }
        XCTAssertEqual(disagreements, [])
    }

    func testDeepHugeAndGarbageInputIsAnErrorNeverATrap() {
        XCTAssertNoThrow(try JSONParser.parse(String(repeating: "[", count: 512) + String(repeating: "]", count: 512)))
        XCTAssertThrowsError(try JSONParser.parse(String(repeating: "[", count: 513) + String(repeating: "]", count: 513)))
        XCTAssertThrowsError(try JSONParser.parse(String(repeating: "[", count: 1_000_000)))
        XCTAssertThrowsError(try JSONParser.parse(String(repeating: "{\"a\":", count: 100_000)))
        let limits = JSONParser.Limits(maxBytes: 100, maxDepth: 3)
        XCTAssertThrowsError(try JSONParser.parse("[" + String(repeating: "1,", count: 100) + "1]", limits: limits))
        XCTAssertThrowsError(try JSONParser.parse("[[[[1]]]]", limits: limits))
        XCTAssertNoThrow(try JSONParser.parse("[[[1]]]", limits: limits))
        XCTAssertThrowsError(try JSONParser.parse("[" + String(repeating: "9", count: 400) + "]"))
        XCTAssertEqual(try JSONParser.parse("\"" + String(repeating: "x", count: 1 << 20) + "\"").stringValue?.count, 1 << 20)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                Array("{}[],:\"\\ 0123456789-+.eEtrufalsn\u{7F}".utf8).randomElement(using: &generator)!
            }
            if let value = try? JSONParser.parse(bytes) { XCTAssertEqual(try JSONParser.parse(JSONWriter.write(value)), value) }
        }
    }
}
