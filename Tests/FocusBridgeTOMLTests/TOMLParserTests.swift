import FocusBridgeTOML
import Foundation
import XCTest

final class TOMLParserTests: XCTestCase {
    /// The toml-test corpus at ../shared/toml-test (next to the package), when it is there: every
    /// file of its TOML 1.0 list.
    func testTheTOMLTestSuite() throws {
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let root = package.deletingLastPathComponent().appendingPathComponent("shared/toml-test")
        guard FileManager.default.fileExists(atPath: root.appendingPathComponent("files-toml-1.0.0").path) else {
            throw XCTSkip("no toml-test corpus at \(root.path)")
        }
        let result = try TOMLTestSuite(root: root).run()
        let total = result.passed.count + result.failed.count
        XCTAssertGreaterThanOrEqual(total, 709, "the TOML 1.0 list of toml-test has 709 files")
        XCTAssertTrue(result.failed.isEmpty, "toml-test: \(result.passed.count) of \(total) passed; failed:\n"
                      + result.failed.map { "\($0.file): \($0.why)" }.joined(separator: "\n"))
    }

    func testKeysAndValuesKeepOrderAndPositions() throws {
        let text = """
        # a comment
        zeta = 1
        [apps."org.x"]
          level = "passive"   # spaces before
        alpha.beta = [ "a",
          "b" ]
        inline = { k = 2026-11-22T09:00:00+01:00, t = 09:00:00 }
        [[s]]
        [[s]]
        d = 2026-11-22
        """
        let root = try TOMLParser.parse(text)
        XCTAssertEqual(root.keys, ["zeta", "apps", "s"])
        XCTAssertEqual(root.entry("zeta")?.keyPosition, TOMLPosition(line: 2, column: 1))
        XCTAssertEqual(root.entry("zeta")?.valuePosition, TOMLPosition(line: 2, column: 8))
        let appsEntry = try XCTUnwrap(root.entry("apps"))
        XCTAssertEqual(appsEntry.keyPosition, TOMLPosition(line: 3, column: 2), "implied by the header, at its first key")
        let x = try XCTUnwrap(appsEntry.value.table?.entry("org.x"))
        XCTAssertEqual(x.keyPosition, TOMLPosition(line: 3, column: 7))
        XCTAssertEqual(x.valuePosition, TOMLPosition(line: 3, column: 1), "a header's table is at its [")
        let app = try XCTUnwrap(x.value.table)
        XCTAssertEqual(app.keys, ["level", "alpha", "inline"])
        XCTAssertEqual(app.entry("level")?.keyPosition, TOMLPosition(line: 4, column: 3))
        XCTAssertEqual(app.entry("level")?.valuePosition, TOMLPosition(line: 4, column: 11))
        XCTAssertEqual(app.entry("level")?.value, .string("passive"))
        let array = try XCTUnwrap(app["alpha"]?.table?.entry("beta"))
        XCTAssertEqual(array.keyPosition, TOMLPosition(line: 5, column: 7))
        XCTAssertEqual(array.value.array?.elements.map(\.position),
                       [TOMLPosition(line: 5, column: 16), TOMLPosition(line: 6, column: 3)])
        let inline = try XCTUnwrap(app["inline"]?.table)
        XCTAssertEqual(inline.position, TOMLPosition(line: 7, column: 10))
        XCTAssertEqual(inline.entry("t")?.valuePosition, TOMLPosition(line: 7, column: 47))
        guard case .offsetDateTime(let when)? = inline["k"], case .localTime(let time)? = inline["t"] else {
            return XCTFail("typed date-times: \(inline)")
        }
        XCTAssertEqual(when.description, "2026-11-22T09:00:00+01:00")
        XCTAssertEqual(when.offsetMinutes, 60)
        XCTAssertEqual(time.description, "09:00:00")
        let tables = try XCTUnwrap(root["s"]?.array)
        XCTAssertEqual(tables.elements.map(\.position), [TOMLPosition(line: 8, column: 1), TOMLPosition(line: 9, column: 1)])
        XCTAssertEqual(tables.elements[1].value.table?["d"], .localDate(TOMLLocalDate(year: 2026, month: 11, day: 22)!))
    }

    /// Columns count characters, not bytes; CR LF ends a line; a byte order mark is not a column.
    func testColumnsCountCharacters() throws {
        let root = try TOMLParser.parse("\u{FEFF}a = 1\r\n\"Ärger\" = \"é\" # ok\r\nb = 2")
        XCTAssertEqual(root.entry("a")?.keyPosition, TOMLPosition(line: 1, column: 1))
        XCTAssertEqual(root.entry("Ärger")?.valuePosition, TOMLPosition(line: 2, column: 11))
        XCTAssertEqual(root.entry("b")?.keyPosition, TOMLPosition(line: 3, column: 1))
    }

    func testErrorsSayWhere() {
        let cases: [(String, TOMLPosition, String)] = [
            ("a = 1\n[\n", TOMLPosition(line: 2, column: 2), "expected a key"),
            ("[*]\n", TOMLPosition(line: 1, column: 2), "expected a key"),
            ("t = 1979-05-27T:00\n", TOMLPosition(line: 1, column: 16), "expected the hour"),
            ("a = [1, }\n", TOMLPosition(line: 1, column: 9), "expected a value"),
            ("a = 1\na = 2\n", TOMLPosition(line: 2, column: 1), "`a` is already defined (line 1)"),
            ("s = \"abc\nb = 1\n", TOMLPosition(line: 1, column: 9), "not closed"),
            ("s = \"\"\"abc\n\nb = 1\n", TOMLPosition(line: 1, column: 5), "not closed with \"\"\""),
            ("a = 0x\n", TOMLPosition(line: 1, column: 7), "expected a digit"),
            ("a = 1__0\n", TOMLPosition(line: 1, column: 6), "underscore"),
            ("a = 2026-02-30\n", TOMLPosition(line: 1, column: 5), "not a date"),
            ("a = 1\rb = 2\n", TOMLPosition(line: 1, column: 6), "carriage return"),
            ("a = \"\u{0}\"\n", TOMLPosition(line: 1, column: 6), "U+0000"),
            ("[a]\n[a]\n", TOMLPosition(line: 2, column: 2), "already defined by a header (line 1)"),
            ("x = { a = 1, }\n", TOMLPosition(line: 1, column: 14), "comma"),
            ("x = { a = 1,\n b = 2 }\n", TOMLPosition(line: 1, column: 13), "one line"),
            (String(repeating: "[", count: 5_000), TOMLPosition(line: 1, column: 3), "expected a key"),
            ("a = " + String(repeating: "[", count: 5_000), TOMLPosition(line: 1, column: 105), "nested more than 100 deep"),
            ("a = " + String(repeating: "{b=", count: 5_000), TOMLPosition(line: 1, column: 305), "nested more than 100 deep"),
        ]
        for (text, position, words) in cases {
            XCTAssertThrowsError(try TOMLParser.parse(text), text.debugDescription) { error in
                guard let error = error as? TOMLError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.position, position, "\(text.debugDescription): \(error)")
                XCTAssertTrue(error.message.contains(words), "\(text.debugDescription): \(error)")
            }
        }
    }

    /// A document equals itself, NaN included; positions count.
    func testEquality() throws {
        let text = "a = nan\nb = [1, 2.5, \"x\", 2026-11-22]\n[t]\nc = { d = true }\n"
        XCTAssertEqual(try TOMLParser.parse(text), try TOMLParser.parse(bytes: Array(text.utf8)))
        XCTAssertNotEqual(try TOMLParser.parse(text), try TOMLParser.parse(" " + text))
        XCTAssertNotEqual(TOMLValue.integer(1), .float(1))
    }

    func testBytesThatAreNotUTF8AreRefusedWhereTheyAre() {
        XCTAssertThrowsError(try TOMLParser.parse(bytes: Array("a = 1\nb = \"".utf8) + [0xFF, 0x22])) { error in
            XCTAssertEqual((error as? TOMLError)?.position, TOMLPosition(line: 2, column: 6))
        }
        // UTF-16 (with its byte order mark) is not UTF-8.
        XCTAssertThrowsError(try TOMLParser.parse(bytes: [0xFF, 0xFE, 0x61, 0x00]))
    }

    func testALargeFileReadsQuickly() throws {
        let line = "k = [" + Array(repeating: "\"x\"", count: 20_000).joined(separator: ", ") + "]\n"
        let start = Date()
        let root = try TOMLParser.parse(line + (0..<5_000).map { "[t\($0)]\na = \($0)\n" }.joined())
        XCTAssertEqual(root.count, 5_001)
        XCTAssertEqual(root["k"]?.array?.elements.last?.position.column, 6 + 19_999 * 5)
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }

    /// A quarter of the most the bridge reads (1 MiB) in each of the shapes that could cost more
    /// than linear time: many array-of-tables entries, many keys in one table, one long line.
    /// (A debug build reads it in a few seconds; quadratic work would take minutes.)
    func testLargeFilesOfEachShapeReadQuickly() throws {
        let start = Date()
        let tables = try TOMLParser.parse(String(repeating: "[[t]]\n", count: (1 << 18) / 6))
        XCTAssertEqual(tables["t"]?.array?.count, (1 << 18) / 6)
        let keys = try TOMLParser.parse((0..<20_000).map { "k\($0) = \($0)\n" }.joined())
        XCTAssertEqual(keys.count, 20_000)
        let line = try TOMLParser.parse("a = [" + String(repeating: "1,", count: 125_000) + "]")
        XCTAssertEqual(line["a"]?.array?.elements.last?.position.column, 5 + 125_000 * 2 - 1)
        XCTAssertLessThan(Date().timeIntervalSince(start), 30)
    }
}
