import FocusBridgeCore
import XCTest

final class AppIdentityTests: XCTestCase {
    func testFlatpakInfoGivesTheApplicationID() {
        let info = "[Application]\nname=org.mozilla.firefox\nruntime=runtime/org.freedesktop.Platform\n\n[Instance]\ninstance-id=1\n"
        let process = ProcessIdentity(processID: 42, flatpakInfo: info, cgroup: nil, executablePath: "/app/lib/firefox/firefox")
        XCTAssertEqual(process.flatpakID, "org.mozilla.firefox")
        XCTAssertEqual(process.executable, "firefox")
        XCTAssertEqual(process.desktopID, "org.mozilla.firefox")
    }

    func testSystemdAppScopesAndServices() {
        let cases: [(String, String?)] = [
            ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Evolution-4242.scope", "org.gnome.Evolution"),
            ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal-99.scope", "org.gnome.Terminal"),
            ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-com.slack.Slack-123.scope", "com.slack.Slack"),
            ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-kde-org.kde.dolphin@a1b2.service", "org.kde.dolphin"),
            ("0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-my\\x2dapp-7.scope", "my-app"),
            ("0::/user.slice/user-1000.slice/session-2.scope", nil),
            ("0::/", nil),
        ]
        for (cgroup, expected) in cases {
            XCTAssertEqual(ProcessIdentity(processID: 1, flatpakInfo: nil, cgroup: cgroup, executablePath: nil).scopeAppID,
                           expected, cgroup)
        }
    }

    func testADeletedExecutableStillNamesTheProgram() {
        XCTAssertEqual(ProcessIdentity(processID: 1, flatpakInfo: nil, cgroup: nil,
                                       executablePath: "/usr/bin/notify-send (deleted)").executable, "notify-send")
    }

    func testResolutionOrder() {
        let process = ProcessIdentity(processID: 9, flatpakID: "org.example.Flat", scopeAppID: "org.example.Scope", executable: "exe")
        let withEntry = NotificationRequest(appName: "Name", hints: ["desktop-entry": .string("org.example.Entry")])
        let scoped = ProcessIdentity(processID: 9, scopeAppID: "org.example.Scope", executable: "exe")
        XCTAssertEqual(AppIdentity.resolve(withEntry, process: scoped).key, "org.example.Entry")
        XCTAssertEqual(AppIdentity.resolve(withEntry, process: scoped).name, "Name")
        XCTAssertNil(AppIdentity.resolve(withEntry, process: scoped).inferredDesktopEntry, "never overrides the client's hint")

        let named = AppIdentity.resolve(NotificationRequest(appName: "Name"), process: scoped)
        XCTAssertEqual(named.key, "Name")
        XCTAssertEqual(named.source, .appName)
        XCTAssertNil(named.name, "the name is the key")
        XCTAssertEqual(named.inferredDesktopEntry, "org.example.Scope")

        XCTAssertEqual(AppIdentity.resolve(NotificationRequest(), process: process).key, "org.example.Flat")
        XCTAssertEqual(AppIdentity.resolve(NotificationRequest(),
                                           process: ProcessIdentity(processID: 9, scopeAppID: "org.example.Scope", executable: "exe")).key,
                       "org.example.Scope")
        let bare = AppIdentity.resolve(NotificationRequest(), process: ProcessIdentity(processID: 9, executable: "exe"))
        XCTAssertEqual(bare.key, "exe")
        XCTAssertEqual(bare.source, .executable)
        XCTAssertNil(bare.inferredDesktopEntry, "an executable name is no desktop ID")
        XCTAssertEqual(AppIdentity.resolve(NotificationRequest(), process: nil).source, .unknown)
        XCTAssertEqual(AppIdentity.resolve(NotificationRequest(appName: "x", hints: ["desktop-entry": .string("")]), process: nil).key,
                       "x", "an empty desktop-entry counts as missing")
    }

    func testTheSandboxDecidesWhoASandboxedSenderIs() {
        let flatpak = ProcessIdentity(processID: 9, flatpakID: "org.example.Flat", executable: "exe")
        for claim in [NotificationRequest(appName: "notify-send"),
                      NotificationRequest(appName: "Firefox", hints: ["desktop-entry": .string("firefox-esr")])] {
            let app = AppIdentity.resolve(claim, process: flatpak)
            XCTAssertEqual(app.key, "org.example.Flat")
            XCTAssertEqual(app.source, .flatpak)
            XCTAssertNil(app.name, "a sandboxed sender's claimed name matches no rule")
            XCTAssertTrue(app.isSandboxed)
        }
        let snap = ProcessIdentity(processID: 9, snapName: "firefox", executable: "firefox")
        let app = AppIdentity.resolve(NotificationRequest(appName: "Slack", hints: ["desktop-entry": .string("slack")]),
                                      process: snap)
        XCTAssertEqual(app.key, "firefox")
        XCTAssertEqual(app.source, .snap)
        XCTAssertNil(app.name)
        XCTAssertNil(app.inferredDesktopEntry, "another app's desktop ID is no snap's")
        let own = AppIdentity.resolve(NotificationRequest(appName: "Firefox", hints: ["desktop-entry": .string("firefox_firefox")]),
                                      process: snap)
        XCTAssertEqual(own.key, "firefox")
        XCTAssertEqual(own.inferredDesktopEntry, "firefox_firefox", "its own desktop ID names its badge and window")
    }

    func testTheNameIsKeptOnlyWhenItIsNotTheKey() {
        XCTAssertNil(AppIdentity.resolve(NotificationRequest(appName: "Slack", hints: ["desktop-entry": .string("slack")]),
                                         process: nil).name, "the same name in another case is the key")
        XCTAssertEqual(AppIdentity.resolve(NotificationRequest(appName: "Firefox", hints: ["desktop-entry": .string("firefox-esr")]),
                                           process: nil).name, "Firefox")
    }

    /// Chromium's own call for a page of `body`'s site, as Chromium makes it.
    private func chromium(_ body: String, entry: String = "chromium", urgency: Int64 = 1) -> NotificationRequest {
        NotificationRequest(appName: "Chromium", appIcon: "file:///tmp/org.chromium.Chromium.scoped_dir.x/logo.png",
                            summary: "New message", body: body, actions: ["default", "Activate", "settings", "Settings"],
                            hints: ["desktop-entry": .string(entry), "urgency": .integer(urgency)], expireTimeout: 25000)
    }

    func testAWebPageIsItsSiteViaItsBrowser() {
        let app = AppIdentity.resolve(chromium("<a href=\"https://app.slack.com/\">app.slack.com</a>\n\nHi"), process: nil)
        XCTAssertEqual(app.key, "app.slack.com")
        XCTAssertEqual(app.source, .site)
        XCTAssertEqual(app.via, "chromium")
        XCTAssertTrue(app.isWebPage)
        XCTAssertNil(app.name, "the browser's name is no name of the site's")
        XCTAssertNil(app.inferredDesktopEntry, "the browser's window in front does not tell which site it shows")

        let local = AppIdentity.resolve(chromium("127.0.0.1:8123\n\nDone"), process: nil)
        XCTAssertEqual(local.key, "127.0.0.1:8123")
        XCTAssertEqual(local.via, "chromium")
        // Chrome, Brave and Edge send the same; with no desktop-entry, the browser's app name.
        let brave = AppIdentity.resolve(NotificationRequest(appName: "Brave", body: "example.org\n\nx"), process: nil)
        XCTAssertEqual(brave.key, "example.org")
        XCTAssertEqual(brave.via, "Brave")
    }

    func testTheBrowsersOwnNotificationsAndOtherAppsKeepTheirKeys() {
        // No site line: the browser's own.
        let own = AppIdentity.resolve(chromium("Download complete"), process: nil)
        XCTAssertEqual(own.key, "chromium")
        XCTAssertEqual(own.source, .desktopEntry)
        XCTAssertNil(own.via)
        // Firefox names no site; its first line is the page's text, whatever it looks like.
        let firefox = AppIdentity.resolve(NotificationRequest(appName: "Firefox", body: "example.com\n\nx",
                                                              hints: ["desktop-entry": .string("firefox-esr")]), process: nil)
        XCTAssertEqual(firefox.key, "firefox-esr")
        XCTAssertEqual(firefox.source, .desktopEntry)
        // Any other app's body is never read for a site.
        let other = AppIdentity.resolve(NotificationRequest(appName: "Mail", body: "example.com\n\nx"), process: nil)
        XCTAssertEqual(other.key, "Mail")
        XCTAssertEqual(other.source, .appName)
    }

    func testOnlyTheBrowsersOwnSandboxNamesASite() {
        let flatpak = ProcessIdentity(processID: 9, flatpakID: "org.chromium.Chromium", executable: "chrome")
        let page = AppIdentity.resolve(chromium("app.slack.com\n\nHi", entry: "org.chromium.Chromium"), process: flatpak)
        XCTAssertEqual(page.key, "app.slack.com")
        XCTAssertEqual(page.source, .site)
        XCTAssertEqual(page.via, "org.chromium.Chromium")
        let snap = ProcessIdentity(processID: 9, snapName: "chromium", executable: "chrome")
        XCTAssertEqual(AppIdentity.resolve(chromium("app.slack.com\n\nHi", entry: "chromium_chromium"), process: snap).via,
                       "chromium")
        // A sandboxed app claiming to be Chromium is itself, site line or not.
        let intruder = ProcessIdentity(processID: 9, flatpakID: "org.example.Intruder", executable: "x")
        let claimed = AppIdentity.resolve(chromium("app.slack.com\n\nHi"), process: intruder)
        XCTAssertEqual(claimed.key, "org.example.Intruder")
        XCTAssertEqual(claimed.source, .flatpak)
        XCTAssertNil(claimed.via)
    }

    func testAHeldPageIsItsSiteAgainWhenShown() {
        let request = chromium("app.slack.com\n\nHi", urgency: 2)
        let page = AppIdentity.held(key: "app.slack.com", request: request, sandbox: nil)
        XCTAssertEqual(page.key, "app.slack.com")
        XCTAssertEqual(page.source, .site)
        XCTAssertEqual(page.via, "chromium")
        let flatpak = AppIdentity.held(key: "app.slack.com", request: chromium("app.slack.com\n\nHi", entry: "org.chromium.Chromium"),
                                       sandbox: "flatpak:org.chromium.Chromium")
        XCTAssertEqual(flatpak.via, "org.chromium.Chromium")
        // Held under another key (a sandboxed app that claimed to be Chromium): that key, no name.
        let intruder = AppIdentity.held(key: "org.example.Intruder", request: request, sandbox: "flatpak:org.example.Intruder")
        XCTAssertEqual(intruder.key, "org.example.Intruder")
        XCTAssertEqual(intruder.source, .appName)
        XCTAssertNil(intruder.name)
        XCTAssertNil(intruder.via)
        let mail = AppIdentity.held(key: "mail", request: NotificationRequest(appName: "Mail"), sandbox: nil)
        XCTAssertEqual(mail.key, "mail")
        XCTAssertNil(mail.name)
        XCTAssertEqual(AppIdentity.held(key: "firefox-esr", request: NotificationRequest(appName: "Firefox"), sandbox: nil).name,
                       "Firefox", "an unsandboxed sender's claimed name may match its [apps] table")
    }
}
