import FocusBridgeCore
import XCTest

/// `BrowserPage`: which senders are Chromium-family browsers, and the site their notifications
/// name, read strictly (the forms are those Chromium's `NotificationPlatformBridgeLinux` sends:
/// the site first in the body, as a link to its origin when the daemon has `body-hyperlinks`).
final class BrowserPageTests: XCTestCase {
    private func site(_ body: String, hints: [String: HintValue] = [:]) -> String? {
        BrowserPage.site(of: NotificationRequest(body: body, hints: hints))
    }

    func testTheBrowsersAreTheChromiumFamilyByEntrySandboxOrName() {
        for key in ["chromium", "Chromium", "chromium-browser", "org.chromium.Chromium", "google-chrome",
                    "Google Chrome", "com.google.Chrome", "brave-browser", "Brave", "com.brave.Browser",
                    "microsoft-edge", "Microsoft Edge", "com.microsoft.Edge"] {
            XCTAssertTrue(BrowserPage.isBrowser(key), key)
        }
        for key in ["firefox-esr", "Firefox", "org.mozilla.firefox", "notify-send", "chromium2", "slack", ""] {
            XCTAssertFalse(BrowserPage.isBrowser(key), key)
        }
    }

    func testThePlainFirstLineIsTheSite() {
        XCTAssertEqual(site("app.slack.com\n\nNew message from Ann"), "app.slack.com")
        XCTAssertEqual(site("127.0.0.1:8123\n\nDone"), "127.0.0.1:8123")
        XCTAssertEqual(site("localhost:3000\n\nHi"), "localhost:3000")
        XCTAssertEqual(site("localhost\n\nHi"), "localhost")
        XCTAssertEqual(site("[::1]:8080\n\nHi"), "[::1]:8080")
        XCTAssertEqual(site("bücher.de\n\nHi"), "bücher.de", "a Unicode host as Chromium shows it")
        XCTAssertEqual(site("app.slack.com"), "app.slack.com", "an empty message: the site is the whole body")
        XCTAssertEqual(site("app.slack.com\n\nfirst\n\nsecond"), "app.slack.com")
    }

    func testTheLinkGivesTheOriginsHostAndPort() {
        XCTAssertEqual(site("<a href=\"https://app.slack.com/\">app.slack.com</a>\n\nNew message"), "app.slack.com")
        XCTAssertEqual(site("<a href=\"http://127.0.0.1:8123/\">127.0.0.1:8123</a>\n\nDone"), "127.0.0.1:8123")
        XCTAssertEqual(site("<a href=\"https://example.com:443/\">example.com</a>"), "example.com", "the default port goes")
        XCTAssertEqual(site("<a href=\"http://example.com:80/\">example.com</a>"), "example.com")
        XCTAssertEqual(site("<a href=\"https://example.com:8443/\">example.com:8443</a>"), "example.com:8443")
        // A long host is shown as its registrable domain; the link still has the whole origin.
        XCTAssertEqual(site("<a href=\"https://very-long-team-name.workspace.example.co.uk/\">example.co.uk</a>\n\nHi"),
                       "very-long-team-name.workspace.example.co.uk")
        XCTAssertEqual(site("<a href=\"https://xn--bcher-kva.de/\">bücher.de</a>\n\nHi"), "xn--bcher-kva.de")
    }

    func testTheOriginHintWhereTheDaemonTakesIt() {
        XCTAssertEqual(site("Just the message", hints: [BrowserPage.originHint: .string("app.slack.com")]), "app.slack.com")
        XCTAssertNil(site("app.slack.com\n\nHi", hints: [BrowserPage.originHint: .string("Not a host")]),
                     "the hint is where the site is, when it is there")
    }

    func testAnythingElseIsNoSite() {
        let bodies = [
            "", "Hello", "Hello.\n\nWorld", "Gmail\n\nYou have mail", "My Extension\n\nUpdated",
            "app.slack.com\nNew message", // one newline: not Chromium's form
            "ok.\n\nx", ".example.com\n\nx", "example..com\n\nx", "-example.com\n\nx", "example-.com\n\nx",
            "Example.com\n\nx", "example.com:0\n\nx", "example.com:65536\n\nx", "example.com:080\n\nx",
            "example.com:\n\nx", "example.com:http\n\nx", "1.2.3\n\nx", "1.2.3.456\n\nx", "v1.2\n\nx",
            "intranet\n\nx", "file:///tmp/page.html\n\nx", "chrome-extension://abcdef\n\nx",
            "user@example.com\n\nx", "example.com/path\n\nx", "exa mple.com\n\nx", "[::1\n\nx", "[zz]:80\n\nx",
            String(repeating: "a", count: 64) + ".com\n\nx",
            String(repeating: "abcdefghi.", count: 26) + "com\n\nx",
            String(repeating: "x", count: 5000),
            "<a href=\"ftp://example.com/\">example.com</a>\n\nx",
            "<a href=\"https://example.com/path\">example.com</a>\n\nx",
            "<a href=\"https://example.com/\">example.com</a> and more\n\nx",
            "<a href=\"https://example.com/\"></a>\n\nx",
            "<a href=\"https://user@example.com/\">example.com</a>\n\nx",
            "<a href=\"https://Example.com/\">example.com</a>\n\nx",
            "<b>app.slack.com</b>\n\nx",
        ]
        for body in bodies { XCTAssertNil(site(body), body) }
    }
}
