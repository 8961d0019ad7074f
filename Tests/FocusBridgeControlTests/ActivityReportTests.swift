import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeJSON
import FocusBridgeTime
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// `focusctl report`'s JSON (every key there, zero or not; an app's counts beside its name),
/// history's `outcome`, and how the report is shown: bars, the hours, the picture (SVG) read
/// back by an XML parser with every text from outside escaped.
final class ActivityReportTests: XCTestCase {
    private let now = Instant(timeIntervalSince1970: 1_795_435_200)

    private func report(_ rows: [ActivityRow]) -> ActivityReport {
        var tally = ActivityTally(since: now.addingTimeInterval(-7 * 86_400), until: now, timeZone: .utc)
        for row in rows { tally.add(row) }
        let suggestions = Activity.suggestions(for: tally.ordered, days: 7, summaryScheduled: true) { _ in Activity.Current() }
        return ActivityReport(tally, days: 7, timeZone: "UTC", suggestions: suggestions)
    }

    private var lastID: UInt32 = 0

    private func rows(_ app: String, _ count: Int, level: InterruptionLevel = .active, closed: UInt32? = nil) -> [ActivityRow] {
        (0..<count).map {
            lastID += 1
            return ActivityRow(id: lastID, app: app, level: level, decision: .delivered,
                               received: now.addingTimeInterval(-Double($0 + 1) * 3600), closeReason: closed)
        }
    }

    private func object(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func testTheKeysAreAllThereAndAnAppsCountsAreBesideItsName() throws {
        let value = report(rows("Pager", 6, level: .timeSensitive, closed: 1) + rows("Mail", 2))
        let json = try object(JSONText.encode(value))
        XCTAssertEqual(Set(json.keys), ["days", "since", "until", "time-zone", "totals", "apps", "unlisted", "suggestions"])
        let apps = try XCTUnwrap(json["apps"] as? [[String: Any]])
        XCTAssertEqual(apps.map { $0["app"] as? String }, ["Pager", "Mail"], "busiest first")
        let pager = apps[0]
        XCTAssertEqual(Set(pager.keys), ["app", "total", "levels", "decisions", "outcomes", "time-sensitive", "by-hour", "bursts"])
        XCTAssertEqual(pager["levels"] as? [String: Int], ["passive": 0, "active": 0, "time-sensitive": 6, "critical": 0])
        XCTAssertEqual(Set((pager["decisions"] as? [String: Int])?.keys ?? [:].keys), Set(DeliveryOutcome.allCases.map(\.rawValue)))
        XCTAssertEqual(pager["outcomes"] as? [String: Int], ["acted": 0, "dismissed": 0, "expired": 6, "closed-by-app": 0,
                                                            "open": 0, "replaced": 0])
        let sensitive = try XCTUnwrap(pager["time-sensitive"] as? [String: Any])
        XCTAssertEqual(sensitive["total"] as? Int, 6)
        XCTAssertEqual((sensitive["outcomes"] as? [String: Int])?["expired"], 6)
        XCTAssertEqual((pager["by-hour"] as? [Int])?.count, 24)
        let suggestion = try XCTUnwrap((json["suggestions"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(suggestion.keys), ["app", "kind", "why", "command"])
        XCTAssertEqual(suggestion["kind"] as? String, "time-sensitive-off")
        XCTAssertEqual(json["since"] as? String, "2026-11-16T12:00:00.000Z")
        // focusctl reads back what the daemon wrote.
        XCTAssertEqual(try JSONText.decode(ActivityReport.self, from: JSONText.encode(value)), value)
    }

    func testHistorySaysTheOutcomeOrNull() throws {
        let open = try object(JSONText.encode(HistoryReport(HistoryEntry(id: 1, app: "a", summary: "", body: "", level: .active,
                                                                         decision: .delivered, received: now))))
        XCTAssertEqual(open["outcome"] as? String, "open")
        let held = try object(JSONText.encode(HistoryReport(HistoryEntry(id: 1, app: "a", summary: "", body: "", level: .active,
                                                                         decision: .heldFocus, received: now))))
        XCTAssertTrue(held["outcome"] is NSNull, "never shown: null, not left out")
    }

    func testBarsAndHours() {
        XCTAssertEqual(ActivityReport.bar(10, of: 10, width: 4), "████")
        XCTAssertEqual(ActivityReport.bar(5, of: 10, width: 4), "██")
        XCTAssertEqual(ActivityReport.bar(1, of: 10, width: 4), "▍", "3.2 eighths of a cell")
        XCTAssertEqual(ActivityReport.bar(1, of: 1000, width: 4), "▏", "never less than an eighth")
        XCTAssertEqual(ActivityReport.bar(0, of: 10), "")
        XCTAssertEqual(ActivityReport.sparkline([0, 1, 4, 8]), " ▁▄█")
        XCTAssertEqual(ActivityReport.sparkline([0, 0]), "  ")
        let value = report(rows("Mail", 2, closed: 2))
        XCTAssertEqual(ActivityReport.outcomesText(value.totals), "2 dismissed")
        XCTAssertEqual(ActivityReport.outcomesText(report([]).totals), "none shown")
    }

    /// Collects the text of every `<text>` element and `<title>`.
    private final class Texts: NSObject, XMLParserDelegate {
        var texts: [String] = []
        var root = ""
        private var current: String?

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if root.isEmpty { root = name }
            if name == "text" || name == "title" { current = "" }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { current? += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if let current, name == "text" || name == "title" { texts.append(current) }
            current = nil
        }
    }

    func testThePictureIsWellFormedAndNamesEveryAppAsText() throws {
        let hostile = "R&D <Build> \"CI\" 'x' \u{1B}[31m \u{FFFE}]]>"
        let value = report(rows("Mail", 3) + rows(hostile, 2, level: .critical))
        let svg = value.svg(subtitle: "From <then> to now")
        let parser = XMLParser(data: Data(svg.utf8))
        let texts = Texts()
        parser.delegate = texts
        XCTAssertTrue(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "") in\n\(svg)")
        XCTAssertEqual(texts.root, "svg")
        XCTAssertTrue(texts.texts.contains("Mail"), "\(texts.texts)")
        XCTAssertTrue(texts.texts.contains("R&D <Build> \"CI\" 'x' \\e[31m \u{FFFD}]]>"), "\(texts.texts)")
        XCTAssertTrue(texts.texts.contains("From <then> to now"))
        XCTAssertTrue(texts.texts.contains("Mail: 3 active"), "each segment of a bar says its level: \(texts.texts)")
        XCTAssertFalse(svg.contains("<script") || svg.contains("href"), "self-contained")
        // An empty report is a picture too.
        let empty = XMLParser(data: Data(report([]).svg(subtitle: "").utf8))
        XCTAssertTrue(empty.parse())
    }

    func testThePictureShowsTheBusiestAppsAndSaysHowManyMore() {
        let many = (0..<(ActivityReport.pictureApps + 3)).flatMap { rows("app\($0)", 1 + $0 % 3) }
        let svg = report(many).svg(subtitle: "")
        XCTAssertTrue(svg.contains("and 3 more apps"), svg)
    }
}
