@testable import FocusBridgeConfig
import Foundation
import XCTest

/// The keys the reader knows (their definitions in `ConfigKeys`, through `Schema.keyTables`) are
/// the keys documented, table by table, both ways: in Config/config.example.toml (each as a
/// `key = …` or `# key = …` line under its table's header) and in focus-bridge.toml(5) (each as an
/// `.It Ic key No = …` item in its table's section, with the notation of its kind of value). A
/// key known but not documented, or documented but not known, fails here.
final class SchemaDocumentationTests: XCTestCase {
    /// The man page's section of each table; a table that is a key's value (`schedule`) is the
    /// list nested under that key's item.
    private static let manSections = [
        "THE DOWNSTREAM TABLE": "downstream", "THE GENERAL TABLE": "general", "THE SUMMARY TABLE": "summary",
        "APP TABLES": "apps", "FOCUS TABLES": "focus", "THE SHARE TABLE": "share",
    ]

    private static func file(_ path: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    private static func matches(_ pattern: String, _ text: String) -> [[String]] {
        let regex = try! NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).map { match in
            (0..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
            }
        }
    }

    /// The keys the example shows, by table: `key = value` lines (set or commented out) under the
    /// last table header (set or commented out); a `[[focus.NAME.schedule]]` header shows the
    /// Focus's `schedule` key too.
    static func exampleKeys(_ text: String) -> [String: Set<String>] {
        var keys: [String: Set<String>] = [:]
        var table = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let header = matches(#"^(?:# )?\[(\[?)([a-z-]+)[^\]]*\]\]?\s*$"#, line).first {
                table = header[1].isEmpty ? header[2] : "schedule"
                if table == "schedule" { keys["focus", default: []].insert("schedule") }
                keys[table, default: []] = keys[table, default: []]
            } else if let key = matches(#"^(?:# )?([a-z][a-z-]*) = "#, line).first {
                keys[table, default: []].insert(key[1])
            }
        }
        return keys
    }

    /// The keys the man page describes, by table, each with the notation of its value (what
    /// follows `No =`).
    static func manKeys(_ text: String) -> [String: [String: String]] {
        var keys: [String: [String: String]] = [:]
        var table: String?
        var depth = 0
        var lastKey = ""
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix(".Sh ") {
                table = manSections[String(line.dropFirst(4))]
                depth = 0
            } else if line.hasPrefix(".Bl ") {
                depth += 1
            } else if line == ".El" {
                depth -= 1
            } else if let table, let item = matches(#"^\.It Ic ([a-z][a-z-]*) No = (.*)$"#, line).first {
                let owner = depth == 1 ? table : lastKey
                keys[owner, default: [:]][item[1]] = item[2]
                if depth == 1 { lastKey = item[1] }
            }
        }
        return keys
    }

    /// Each problem with the documented keys of each table, against the known ones.
    static func problems(documented: [String: Set<String>], in what: String) -> [String] {
        var problems: [String] = []
        let known = Set(Schema.keyTables.map(\.name))
        for table in documented.keys.sorted() where !known.contains(table) {
            problems.append("\(what) documents a table `\(table)` the reader does not know")
        }
        for table in Schema.keyTables {
            let names = Set(table.keys.map(\.name))
            let shown = documented[table.name] ?? []
            for key in names.subtracting(shown).sorted() {
                problems.append("\(what) lacks \(table.header) \(key), a key the reader knows")
            }
            for key in shown.subtracting(names).sorted() {
                problems.append("\(what) documents \(table.header) \(key), a key the reader refuses")
            }
        }
        return problems
    }

    func testTheExampleShowsEveryKeyAndNoOther() throws {
        let keys = Self.exampleKeys(try Self.file("Config/config.example.toml"))
        XCTAssertTrue(keys["general"]?.contains("max-actions") == true && keys["schedule"]?.contains("days") == true, "\(keys)")
        XCTAssertEqual(Self.problems(documented: keys, in: "config.example.toml"), [])
    }

    func testTheManPageDescribesEveryKeyAndNoOther() throws {
        let keys = Self.manKeys(try Self.file("man/focus-bridge.toml.5")).mapValues { Set($0.keys) }
        XCTAssertTrue(keys["downstream"]?.contains("mode") == true && keys["schedule"]?.contains("end") == true, "\(keys)")
        XCTAssertEqual(Self.problems(documented: keys, in: "focus-bridge.toml(5)"), [])
    }

    /// Each key's item shows its kind of value: `true | false`, a number, a string, an array, or
    /// exactly the choices the reader takes.
    func testTheManPageShowsEachKeysKindOfValue() throws {
        let man = Self.manKeys(try Self.file("man/focus-bridge.toml.5"))
        for table in Schema.keyTables {
            for key in table.keys {
                guard let notation = man[table.name]?[key.name] else { continue }
                let place = "\(table.header) \(key.name): \(notation)"
                switch key.kind {
                case .bool: XCTAssertEqual(notation, "Cm true | false", place)
                case .integer: XCTAssertEqual(notation, "Ar n", place)
                case .string, .time: XCTAssertTrue(notation.hasPrefix("Qq Ar ") || notation.hasPrefix("Qo Ar "), place)
                case .strings, .times, .tables: XCTAssertTrue(notation.hasPrefix("Bo "), place)
                case .oneOf(let names, many: true):
                    XCTAssertTrue(notation.hasPrefix("Bo "), place)
                    XCTAssertFalse(names.isEmpty, place)
                case .oneOf(let names, many: false):
                    XCTAssertEqual(Self.matches(#"Qo Cm (\S+) Qc"#, notation).map { $0[1] }, names, place)
                }
            }
        }
    }

    /// The checks above find a key missing from a table and a key the reader does not know.
    func testTheChecksFindAMissingAndAnUnknownKey() throws {
        let example = try Self.file("Config/config.example.toml")
            .replacingOccurrences(of: "# tray = true\n", with: "# trays = true\n")
        XCTAssertEqual(Self.problems(documented: Self.exampleKeys(example), in: "x"), [
            "x lacks [general] tray, a key the reader knows",
            "x documents [general] trays, a key the reader refuses",
        ])
        let man = try Self.file("man/focus-bridge.toml.5")
            .replacingOccurrences(of: ".It Ic end No = ", with: ".It Ic stop No = ")
        XCTAssertEqual(Self.problems(documented: Self.manKeys(man).mapValues { Set($0.keys) }, in: "x"), [
            "x lacks [[focus.NAME.schedule]] end, a key the reader knows",
            "x documents [[focus.NAME.schedule]] stop, a key the reader refuses",
        ])
    }
}
