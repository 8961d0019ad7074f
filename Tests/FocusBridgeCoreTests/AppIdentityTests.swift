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
}
