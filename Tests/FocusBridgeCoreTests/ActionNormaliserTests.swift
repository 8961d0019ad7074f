import Foundation
@testable import FocusBridgeCore
import XCTest

/// Every rule of focus-bridge.toml(5), ACTIONS, one case each: client actions → forwarded actions.
final class ActionNormaliserTests: XCTestCase {
    private func forwarded(_ flat: [String], destructive: [String] = [], settings: GeneralSettings = GeneralSettings()) -> [String] {
        ActionNormaliser.normalise(flat, destructiveKeys: destructive, settings: settings).flat
    }

    func testTheRules() {
        var noHeuristic = GeneralSettings()
        noHeuristic.destructiveLabels = []
        var two = GeneralSettings()
        two.maxActions = 2
        var marker = GeneralSettings()
        marker.destructiveMarker = "[!] "
        let cases: [(String, [String], [String], GeneralSettings, [String])] = [
            ("odd length loses its trailing element", ["a", "A", "b"], [], GeneralSettings(), ["a", "A"]),
            ("an empty key is dropped", ["", "Nothing", "a", "A"], [], GeneralSettings(), ["a", "A"]),
            ("an empty label is dropped", ["a", "", "b", "B"], [], GeneralSettings(), ["b", "B"]),
            ("default and inline-reply keep an empty label", ["default", "", "inline-reply", ""], [], GeneralSettings(),
             ["default", "", "inline-reply", ""]),
            ("a repeated key keeps its first", ["a", "First", "a", "Second"], [], GeneralSettings(), ["a", "First"]),
            ("six buttons and default → default and four", ["default", "Open", "1", "One", "2", "Two", "3", "Three", "4", "Four",
                                                             "5", "Five", "6", "Six"], [], GeneralSettings(),
             ["default", "Open", "1", "One", "2", "Two", "3", "Three", "4", "Four"]),
            ("destructive goes last and is marked", ["del", "Delete", "keep", "Keep"], [], GeneralSettings(),
             ["keep", "Keep", "del", "⚠ Delete"]),
            ("when something must go, destructive goes first", ["del", "Delete", "1", "One", "2", "Two", "3", "Three", "4", "Four"],
             [], GeneralSettings(), ["1", "One", "2", "Two", "3", "Three", "4", "Four"]),
            ("whole words only", ["t", "Trashy novel", "u", "Uninstalled apps"], [], GeneralSettings(),
             ["t", "Trashy novel", "u", "Uninstalled apps"]),
            ("case-insensitive", ["r", "REMOVE it", "k", "Keep"], [], GeneralSettings(), ["k", "Keep", "r", "⚠ REMOVE it"]),
            ("the hint flags keys", ["x", "Archive", "y", "Reply"], ["x"], GeneralSettings(), ["y", "Reply", "x", "⚠ Archive"]),
            ("[] turns the heuristic off", ["del", "Delete", "k", "Keep"], [], noHeuristic, ["del", "Delete", "k", "Keep"]),
            ("max-actions", ["1", "One", "2", "Two", "3", "Three"], [], two, ["1", "One", "2", "Two"]),
            ("the marker is configurable", ["b", "Block sender"], [], marker, ["b", "[!] Block sender"]),
            ("a destructive default becomes a button", ["default", "Delete", "k", "Keep"], [], GeneralSettings(),
             ["k", "Keep", "x-focus-default", "⚠ Delete"]),
            ("default and inline-reply are not buttons", ["inline-reply", "Reply", "default", "", "1", "One", "2", "Two", "3", "Three",
                                                          "4", "Four"], [], GeneralSettings(),
             ["default", "", "1", "One", "2", "Two", "3", "Three", "4", "Four", "inline-reply", "Reply"]),
        ]
        for (name, input, destructive, settings, expected) in cases {
            XCTAssertEqual(forwarded(input, destructive: destructive, settings: settings), expected, name)
        }
    }

    func testNeverMoreThanFourButtons() {
        var settings = GeneralSettings()
        settings.maxActions = 9 // the config refuses this; the core holds the line anyway
        let flat = (1...8).flatMap { ["k\($0)", "L\($0)"] }
        XCTAssertEqual(forwarded(flat, settings: settings).count, 8)
    }

    func testTheDemotedDefaultMapsBackToTheClientsKey() {
        let result = ActionNormaliser.normalise(["default", "Discard draft"], destructiveKeys: [], settings: GeneralSettings())
        XCTAssertEqual(result.originalKeys[ActionNormaliser.demotedDefaultKey], "default")
        XCTAssertTrue(result.trace.joined().contains("destructive"))
    }

    /// The hand-written word splitter agrees with Foundation's alphanumerics (slower, and not in
    /// Core) on labels in many scripts and with marks, digits and punctuation.
    func testWordsAgreeWithFoundationsAlphanumerics() {
        let labels = ["Delete", "Mark as spam", "  Move to   Trash!! ", "Löschen", "Supprimer définitivement", "Удалить",
                      "削除する", "حذف", "e\u{301}liminer", "Block #2", "x-42_y", "", "—", "Ⅻ item", "ﬁle", "İstanbul",
                      "A\u{20DD}B", "٣ rows", "don't", "tab\tsep\nline", "🗑 Delete"]
        for label in labels {
            let foundation = label.lowercased().components(separatedBy: CharacterSet.alphanumerics.inverted).filter { !$0.isEmpty }
            XCTAssertEqual(ActionNormaliser.words(label), foundation, label.debugDescription)
        }
    }

    func testFiveHundredActions() {
        let flat = (1...500).flatMap { ["k\($0)", "Label \($0)"] }
        XCTAssertEqual(forwarded(flat).count, 8)
    }

    /// GNOME Shell shows three buttons: the bridge gives up the fourth itself, destructive first,
    /// instead of letting GNOME drop whatever comes last.
    func testADaemonThatShowsThreeButtonsGetsThreeDestructiveGoingFirst() throws {
        let gnome = ServerInformation(name: "gnome-shell", vendor: "GNOME", version: "43.9", specVersion: "1.2")
        XCTAssertEqual(gnome.buttonLimit, 3)
        XCTAssertNil(ServerInformation(reply: ["dunst", "knopwob", "1.9.0", "1.2"]).buttonLimit)
        let flat = ["del", "Delete", "1", "One", "2", "Two", "3", "Three"]
        let result = ActionNormaliser.normalise(flat, destructiveKeys: [], settings: GeneralSettings(),
                                                daemonLimit: gnome.buttonLimit)
        XCTAssertEqual(result.flat, ["1", "One", "2", "Two", "3", "Three"])
        XCTAssertTrue(result.trace.contains { $0.contains("at most 3 buttons (the daemon shows no more)") }, "\(result.trace)")
        // a smaller configured limit still wins
        var two = GeneralSettings()
        two.maxActions = 2
        XCTAssertEqual(ActionNormaliser.normalise(flat, destructiveKeys: [], settings: two, daemonLimit: 3).flat,
                       ["1", "One", "2", "Two"])
        // and the policy passes the daemon's limit on
        let decision = Policy.decide(NotificationRequest(appName: "Mail", actions: flat),
                                     app: AppIdentity(key: "Mail", source: .appName),
                                     context: PolicyContext(daemonButtonLimit: gnome.buttonLimit))
        XCTAssertEqual(decision.actions.flat.count, 6)
    }
}
