import FocusBridgeConfig
import FocusBridgeCore
import Foundation
import XCTest

/// One truth for defaults: Config/config.example.toml shows every key with its default, and
/// those are the code's. The file as shipped is the defaults; with every default line of
/// [downstream] and [general] set, it is still the defaults.
final class DocumentedDefaultsTests: XCTestCase {
    private var example: String {
        get throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            return try String(contentsOf: root.appendingPathComponent("Config/config.example.toml"), encoding: .utf8)
        }
    }

    func testTheExampleAsShippedIsTheDefaults() throws {
        XCTAssertEqual(try Configuration.parse(try example, path: "config.example.toml"), Configuration())
    }

    func testEveryDefaultShownIsTheCodesDefault() throws {
        // Set every "# key = value" line of the tables whose lines are defaults (not examples):
        // [downstream] but its per-mode examples, and the whole [general] table.
        let examples: Set<String> = ["command", "name", "address"]
        var table = ""
        var lines: [String] = []
        var set: [String] = []
        for line in try example.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("[") || line.hasPrefix("# [") {
                table = line.replacingOccurrences(of: "# ", with: "")
            }
            let inDefaults = table == "[downstream]" || table == "[general]"
            if inDefaults, line == "# [general]" {
                lines.append("[general]")
                continue
            }
            if inDefaults, line.hasPrefix("# "), let equals = line.firstIndex(of: "="),
               case let key = line.dropFirst(2)[..<equals].trimmingCharacters(in: .whitespaces),
               !key.isEmpty, !key.contains(" "), !examples.contains(key) {
                lines.append(String(line.dropFirst(2)))
                set.append(key)
                continue
            }
            lines.append(line)
        }
        XCTAssertTrue(set.contains("max-actions") && set.contains("session-names") && set.contains("history-days"), "\(set)")
        let configuration = try Configuration.parse(lines.joined(separator: "\n"), path: "defaults.toml")
        XCTAssertEqual(configuration.policy, PolicySettings(), "a default in the example is not the code's (keys set: \(set))")
        XCTAssertEqual(configuration.downstream, DownstreamSettings())
    }

    func testTheSummaryIsOptIn() {
        XCTAssertEqual(PolicySettings().summaryTimes, [], "no summary unless [summary] times says when")
    }
}
