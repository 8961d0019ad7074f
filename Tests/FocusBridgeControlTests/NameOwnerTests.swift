import FocusBridgeControl
import FocusBridgeCore
import XCTest

/// Who owns `org.freedesktop.Notifications`: what kind of program it is, by its executable, and
/// the one sentence that says how to put it behind the bridge.
final class NameOwnerTests: XCTestCase {
    func testEveryKnownDaemonIsRecognisedByItsExecutable() {
        for name in ["dunst", "mako", "swaync", "xfce4-notifyd", "lxqt-notificationd"] {
            XCTAssertEqual(NameOwner(uniqueName: ":1.1", executable: name).kind, .standaloneDaemon(name))
        }
        XCTAssertEqual(NameOwner(uniqueName: ":1.1", executable: "notification-daemon").kind,
                       .replaceableDaemon("notification-daemon"))
        XCTAssertEqual(KnownDaemon.all.map(\.name),
                       ["dunst", "mako", "swaync", "xfce4-notifyd", "notification-daemon", "lxqt-notificationd"])
        XCTAssertEqual(KnownDaemon.running(["/usr/lib/notification-daemon/notification-daemon"])?.allowsReplacement, true)
    }

    func testNotificationDaemonIsToldToUseReplace() {
        let owner = NameOwner(uniqueName: ":1.2", processID: 9, executable: "notification-daemon",
                              command: ["/usr/lib/notification-daemon/notification-daemon"])
        XCTAssertEqual(owner.kind, .replaceableDaemon("notification-daemon"))
        XCTAssertTrue(owner.conflictSentence(replace: false).contains("--replace"))
        let other = NameOwner(uniqueName: ":1.3", processID: 10, executable: "my-notifier",
                              command: ["/opt/my notifier/my-notifier", "-v"])
        XCTAssertTrue(other.conflictSentence(replace: false)
            .contains("`focus-bridge --downstream spawn -- '/opt/my notifier/my-notifier' -v`"),
                      "the suggested command is the one that runs, runnable as it is")
    }
}
