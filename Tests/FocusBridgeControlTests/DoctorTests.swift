@testable import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeJSON
import FocusBridgeTime
import Foundation
import XCTest

/// `focusctl doctor`'s checks, as pure functions of the facts focusctl gathers: each finding
/// and the sentence that fixes it, for the session as it is (a user manager or not, a desktop
/// or a window manager).
final class DoctorTests: XCTestCase {
    private let home = ["HOME": "/home/ann"]

    private func facts(_ environment: [String: String] = [:], status: StatusReport? = nil,
                       config: Doctor.Facts.Config = .init(path: "/home/ann/.config/focus-bridge/config.toml", exists: false),
                       state: Doctor.Facts.State = .absent(folder: "/home/ann/.local/state/focus-bridge")) -> Doctor.Facts {
        Doctor.Facts(environment: home.merging(environment) { $1 }, status: status, config: config, state: state)
    }

    private func status(mode: String = "spawn", connected: Bool = true, problem: String? = nil,
                        failures: [DaemonStartFailure] = [], cause: String? = nil, reason: String? = nil,
                        refused: StatusReport.Config.Refusal? = nil, log: StatusReport.Log? = nil) -> StatusReport {
        var report = StatusReport(
            version: "0.1.0", silent: false, focus: nil, nextSummary: nil,
            downstream: .init(mode: mode, target: mode == "spawn" ? "/usr/bin/dunst" : "standard output", connected: connected,
                              daemon: connected && mode != "log"
                                  ? ServerInformation(name: "dunst", vendor: "knopwob", version: "1.9.0", specVersion: "1.2") : nil,
                              problem: problem, failures: failures, cause: cause, reason: reason),
            counts: .init(received: 0, delivered: 0, queued: 0, inFlight: 0, heldFocus: 0, heldSummary: 0),
            state: .init(folder: "/home/ann/.local/state/focus-bridge", inMemory: false, problem: nil, unwritten: 0, lost: 0),
            config: .init(path: "/home/ann/.config/focus-bridge/config.toml", refused: refused), log: log)
        report.downstream.capabilities = ["body"]
        return report
    }

    private func check(_ id: String, _ facts: Doctor.Facts) throws -> Doctor.Check {
        try XCTUnwrap(Doctor.checks(facts).first { $0.check == id }, "no \(id) check")
    }

    // MARK: The bus and the bridge

    func testWithoutASessionBusTheLocalChecksStillRun() {
        var facts = facts()
        facts.noBus = "DBUS_SESSION_BUS_ADDRESS is not set"
        let checks = Doctor.checks(facts)
        XCTAssertEqual(checks.map(\.check), ["session-bus", "config", "start", "activation", "other-daemon", "state"])
        XCTAssertFalse(checks[0].ok)
        XCTAssertTrue(checks[0].found.contains("the bridge and its daemon were not checked"))
        XCTAssertFalse(Doctor.Report(checks).ok)
    }

    func testARunningBridgeWithItsDaemonIsAllWell() throws {
        var facts = facts(["XDG_CURRENT_DESKTOP": "sway", "SWAYSOCK": "/run/user/1000/sway-ipc.sock"], status: status(),
                          config: .init(path: "/home/ann/.config/focus-bridge/config.toml", exists: true))
        facts.bridgeProcessID = 4242
        facts.startFiles = [(StartFile.candidates(for: .windowManager("sway"), environment: home)[0], "exec focus-bridge\n")]
        let report = Doctor.Report(Doctor.checks(facts))
        XCTAssertTrue(report.ok, "\(report.checks.filter { !$0.ok })")
        XCTAssertEqual(try check("bridge", facts).found,
                       "focus-bridge 0.1.0 runs (PID 4242) and owns org.freedesktop.Notifications")
        XCTAssertTrue(try check("daemon", facts).found.hasPrefix("dunst 1.9.0 (knopwob)"))
        XCTAssertEqual(try check("start", facts).found, "/home/ann/.config/sway/config:1 starts it (`exec focus-bridge`)")
        XCTAssertTrue(report.checks.allSatisfy { $0.fix == nil })
    }

    func testOnGnomeTheRunningBridgeMustServeTheGtkDoorToo() throws {
        var facts = facts(["XDG_CURRENT_DESKTOP": "GNOME"], status: status())
        facts.bridgeProcessID = 4242
        facts.gtkOwner = NameOwner(uniqueName: ":1.9", processID: 4242)
        XCTAssertTrue(try check("gtk-door", facts).ok)
        facts.gtkOwner = NameOwner(uniqueName: ":1.3", processID: 1717, executable: "/usr/bin/gnome-shell")
        let behind = try check("gtk-door", facts)
        XCTAssertFalse(behind.ok)
        XCTAssertTrue(behind.found.contains("gnome-shell"), behind.found)
        XCTAssertTrue(behind.fix?.contains("log out and in") == true)
        facts.environment["XDG_CURRENT_DESKTOP"] = "sway"
        facts.gtkOwner = nil
        XCTAssertNil(Doctor.gtkDoor(facts), "outside GNOME, with nobody serving it, there is nothing to check")
    }

    func testAStoppedBridgeNamesTheOwnerItsPIDAndHowToPutItBehind() throws {
        var facts = facts()
        facts.notificationsOwner = NameOwner(uniqueName: ":1.7", processID: 42, executable: "dunst", command: ["/usr/bin/dunst"])
        facts.gtkOwner = NameOwner(uniqueName: ":1.3", processID: 7, executable: "gnome-shell")
        let bridge = try check("bridge", facts)
        XCTAssertFalse(bridge.ok)
        XCTAssertEqual(bridge.found, "focus-bridge is not running; org.freedesktop.Notifications is owned by dunst (PID 42, :1.7), "
                           + "and org.gtk.Notifications by gnome-shell (PID 7, :1.3)")
        XCTAssertEqual(bridge.fix, facts.notificationsOwner?.conflictSentence(replace: false))
        XCTAssertTrue(bridge.fix?.contains("DAEMONS in focus-bridge(1)") == true)
        // No daemon checked without a bridge.
        XCTAssertNil(Doctor.checks(facts).first { $0.check == "daemon" })
    }

    func testAStoppedBridgeWithTheNameFreeSaysHowToStartItForTheSession() throws {
        XCTAssertEqual(try check("bridge", facts()).fix, "start it: focus-bridge &")
        var managed = facts()
        managed.userManager = true
        managed.unitPath = "/home/ann/.local/share/systemd/user/focus-bridge.service"
        XCTAssertEqual(try check("bridge", managed).fix, "start it: systemctl --user start focus-bridge")
        // A unit with no manager to run it is no advice.
        managed.userManager = false
        XCTAssertEqual(try check("bridge", managed).fix, "start it: focus-bridge &")
    }

    // MARK: The daemon

    func testNoDaemonGivesEveryFailureAndTheLikelyCause() throws {
        let cause = DaemonStartFailure.likelyCause(environment: [:])
        let failures = [DaemonStartFailure(command: "/usr/bin/dunst", reason: "it exited with status 1 before it served notifications"),
                        DaemonStartFailure(command: "/usr/bin/lxqt-notificationd", reason: "it was killed by signal 6 before it served notifications")]
        let facts = facts(status: status(mode: "log", problem: "cannot start /usr/bin/dunst: …; fell back to log mode",
                                         failures: failures, cause: cause))
        let daemon = try check("daemon", facts)
        XCTAssertFalse(daemon.ok)
        XCTAssertTrue(daemon.found.hasPrefix("no daemon shows notifications, only the log has them: cannot start /usr/bin/dunst"))
        XCTAssertEqual(daemon.fix, cause)
        XCTAssertTrue(cause?.contains("exec focus-bridge") == true)
        // With a display, the first failure is where to look.
        let noCause = self.facts(status: status(mode: "log", problem: "…", failures: failures))
        XCTAssertEqual(try check("daemon", noCause).fix, "run `/usr/bin/dunst` by hand to see why it cannot start")
    }

    func testLogModeAskedForIsMeant() throws {
        let asked = try check("daemon", facts(status: status(mode: "log", reason: DownstreamReason.asked("log"))))
        XCTAssertTrue(asked.ok, asked.found)
        let fallen = try check("daemon", facts(status: status(mode: "log", reason: "auto: not a GNOME session, and none installed")))
        XCTAssertFalse(fallen.ok)
        XCTAssertTrue(fallen.fix?.hasPrefix("install a notification daemon") == true)
    }

    func testTheLikelyCauseFollowsHowTheBridgeWasStarted() {
        XCTAssertNil(DaemonStartFailure.likelyCause(environment: ["DISPLAY": ":0"]))
        XCTAssertNil(DaemonStartFailure.likelyCause(environment: ["WAYLAND_DISPLAY": "wayland-1"]))
        let unit = DaemonStartFailure.likelyCause(environment: ["DISPLAY": "", "INVOCATION_ID": "abc"])
        XCTAssertTrue(unit?.contains("systemctl --user import-environment DISPLAY WAYLAND_DISPLAY") == true)
        let other = DaemonStartFailure.likelyCause(environment: [:])
        XCTAssertFalse(other?.contains("systemctl") == true)
    }

    // MARK: The configuration

    func testABrokenConfigurationGivesItsFirstPlace() throws {
        let problems = ["/c.toml:3:1: unknown key `levle` in [apps.X]; did you mean `level`?", "/c.toml:7:9: bad time"]
        let broken = facts(config: .init(path: "/c.toml", exists: true, problems: problems))
        let config = try check("config", broken)
        XCTAssertFalse(config.ok)
        XCTAssertEqual(config.found, "the configuration does not load: \(problems[0]) (and 1 more)")
        XCTAssertTrue(config.fix?.contains("focus-bridge does not start with it") == true)
        let running = facts(status: status(), config: .init(path: "/c.toml", exists: true, problems: problems))
        XCTAssertTrue(try check("config", running).fix?.contains("keeps the configuration it runs") == true)
    }

    func testAFileTheBridgeRefusedButThatLoadsNowAsksForAReload() throws {
        let refusal = StatusReport.Config.Refusal(at: Instant(timeIntervalSince1970: 0), problems: ["/c.toml:1:1: x"])
        let config = try check("config", facts(status: status(refused: refusal), config: .init(path: "/c.toml", exists: true)))
        XCTAssertFalse(config.ok)
        XCTAssertEqual(config.fix, "focusctl reload")
    }

    // MARK: Starting with the session

    func testAUserManagerWantsTheUnitEnabled() throws {
        var facts = facts()
        facts.userManager = true
        facts.unitPath = "/usr/lib/systemd/user/focus-bridge.service"
        let start = try check("start", facts)
        XCTAssertFalse(start.ok)
        XCTAssertEqual(start.fix, "enable the unit: systemctl --user enable --now focus-bridge")
        facts.unitLinks = ["/home/ann/.config/systemd/user/graphical-session-pre.target.wants/focus-bridge.service"]
        XCTAssertTrue(try check("start", facts).ok)
    }

    func testAWindowManagerWithoutUserManagerNeverGetsSystemctlOrAutostartAdvice() throws {
        var facts = facts(["I3SOCK": "/run/user/1000/i3/ipc-socket.1"])
        // The installed autostart entry is there, but i3 does not read it.
        facts.autostart = [AutostartEntry(path: "/home/ann/.config/autostart/focus-bridge.desktop",
                                          text: "[Desktop Entry]\nExec=/home/ann/.local/bin/focus-bridge\n")]
        facts.unitPath = "/home/ann/.local/share/systemd/user/focus-bridge.service"
        let start = try check("start", facts)
        XCTAssertFalse(start.ok)
        XCTAssertTrue(start.found.contains("i3 does not run the autostart entry"), start.found)
        XCTAssertEqual(start.fix, "i3 runs what its configuration says, not autostart entries: add `exec --no-startup-id focus-bridge` "
                           + "in /home/ann/.config/i3/config (in place of the line that started your old daemon, such as `exec dunst`)")
        XCTAssertFalse(start.fix?.contains("systemctl") == true)
        XCTAssertFalse(try check("bridge", facts).fix?.contains("systemctl") == true)
    }

    func testADesktopRunsTheAutostartEntry() throws {
        var facts = facts(["XDG_CURRENT_DESKTOP": "XFCE"])
        XCTAssertEqual(try check("start", facts).fix,
                       "Xfce runs XDG autostart entries: copy FocusBridge's (focus-bridge.desktop, as make install puts it) "
                           + "into /home/ann/.config/autostart/")
        facts.autostart = [AutostartEntry(path: "/etc/xdg/autostart/focus-bridge.desktop", text: "[Desktop Entry]\nExec=focus-bridge\n")]
        XCTAssertTrue(try check("start", facts).ok)
        facts.autostart = [AutostartEntry(path: "/etc/xdg/autostart/focus-bridge.desktop",
                                          text: "[Desktop Entry]\nExec=focus-bridge\nHidden=true\n")]
        XCTAssertFalse(try check("start", facts).ok)
    }

    func testSessionKinds() {
        XCTAssertEqual(SessionKind(environment: ["SWAYSOCK": "/s"]), .windowManager("sway"))
        XCTAssertEqual(SessionKind(environment: ["XDG_CURRENT_DESKTOP": "bspwm"]), .windowManager("bspwm"))
        XCTAssertEqual(SessionKind(environment: ["XDG_CURRENT_DESKTOP": "ubuntu:GNOME"]), .desktop("GNOME"))
        XCTAssertEqual(SessionKind(environment: ["XDG_CURRENT_DESKTOP": "GNOME-Flashback:GNOME"]), .desktop("GNOME"))
        XCTAssertEqual(SessionKind(environment: ["XDG_CURRENT_DESKTOP": "KDE"]), .desktop("Plasma"))
        XCTAssertEqual(SessionKind(environment: ["DESKTOP_SESSION": "i3"]), .windowManager("i3"))
        XCTAssertEqual(SessionKind(environment: [:]), .unknown)
    }

    // MARK: What else would start

    func testAnotherDaemonsActivationFileFirstWinsAtTheNextLogin() throws {
        var facts = facts()
        facts.activation = [("/usr/share/dbus-1/services",
                             [ActivationFile(path: "/usr/share/dbus-1/services/org.knopwob.dunst.service", program: "dunst",
                                             systemdService: "dunst.service")])]
        facts.programPath = "/home/ann/.local/bin/focus-bridge"
        let activation = try check("activation", facts)
        XCTAssertFalse(activation.ok)
        XCTAssertTrue(activation.found.contains("starts dunst, and focus-bridge cannot start after it"), activation.found)
        XCTAssertEqual(activation.fix, "put FocusBridge's activation file first: mkdir -p /home/ann/.local/share/dbus-1/services && "
                           + "printf '[D-BUS Service]\\nName=org.freedesktop.Notifications\\nExec=/home/ann/.local/bin/focus-bridge\\n' "
                           + "> /home/ann/.local/share/dbus-1/services/org.freedesktop.Notifications.service")
        // Ours first: fine.
        facts.activation.insert(("/home/ann/.local/share/dbus-1/services",
                                 [ActivationFile(path: "/home/ann/.local/share/dbus-1/services/org.freedesktop.Notifications.service",
                                                 program: "focus-bridge", systemdService: "focus-bridge.service")]), at: 0)
        XCTAssertTrue(try check("activation", facts).ok)
        // Beside ours in one folder: the bus takes either.
        facts.activation[0].files.append(ActivationFile(path: "/home/ann/.local/share/dbus-1/services/mako.service",
                                                        program: "mako", systemdService: nil))
        let beside = try check("activation", facts)
        XCTAssertFalse(beside.ok)
        XCTAssertTrue(beside.found.contains("the bus takes either"), beside.found)
        XCTAssertEqual(beside.fix, "remove /home/ann/.local/share/dbus-1/services/mako.service")
    }

    func testAnEnabledUnitOwnsTheNameBeforeAnyActivation() throws {
        var facts = facts()
        facts.userManager = true
        facts.unitLinks = ["/home/ann/.config/systemd/user/graphical-session-pre.target.wants/focus-bridge.service"]
        facts.activation = [("/usr/share/dbus-1/services",
                             [ActivationFile(path: "/usr/share/dbus-1/services/org.knopwob.dunst.service", program: "dunst",
                                             systemdService: nil)])]
        XCTAssertTrue(try check("activation", facts).ok)
    }

    func testActivationFilesAreReadAsTheBusReadsThem() throws {
        let file = try XCTUnwrap(ActivationFile(path: "/x/a.service", text: """
            # comment
            [D-BUS Service]
            Name=org.freedesktop.Notifications
            Exec=/usr/bin/env FOO=1 /usr/lib/x/xfce4-notifyd --flag
            """))
        XCTAssertEqual(file.program, "xfce4-notifyd")
        XCTAssertNil(ActivationFile(path: "/x/b.service", text: "[D-BUS Service]\nName=org.example.Other\nExec=x\n"))
        XCTAssertEqual(ActivationFile.folders(environment: ["HOME": "/h", "XDG_RUNTIME_DIR": "/run/user/1",
                                                            "XDG_DATA_DIRS": "/usr/local/share/:/usr/share/"]),
                       ["/run/user/1/dbus-1/services", "/h/.local/share/dbus-1/services", "/usr/local/share/dbus-1/services",
                        "/usr/share/dbus-1/services"])
    }

    func testOtherDaemonsStartedAtLoginAreEachACheck() throws {
        var facts = facts(["SWAYSOCK": "/s"])
        let sway = StartFile.candidates(for: .windowManager("sway"), environment: home)[0]
        facts.startFiles = [(sway, "# exec mako\nexec mako\nbindsym $mod+n exec makoctl dismiss\nexec_always focus-bridge\n")]
        facts.userManager = true
        facts.otherUnitLinks = [("dunst", "/home/ann/.config/systemd/user/default.target.wants/dunst.service")]
        // sway reads no autostart entries: dunst's is not a finding there.
        facts.autostart = [AutostartEntry(path: "/etc/xdg/autostart/dunst.desktop", text: "[Desktop Entry]\nExec=dunst\n")]
        let others = Doctor.checks(facts).filter { $0.check == "other-daemon" }
        XCTAssertEqual(others.map(\.found), [
            "/home/ann/.config/sway/config:2 starts mako at login (`exec mako`)",
            "dunst.service is enabled (/home/ann/.config/systemd/user/default.target.wants/dunst.service) and starts dunst with the session",
        ])
        XCTAssertEqual(others.map(\.fix), ["remove that line: focus-bridge runs mako behind itself", "systemctl --user disable dunst.service"])
        XCTAssertTrue(try check("start", facts).ok)

        var desktop = self.facts(["XDG_CURRENT_DESKTOP": "XFCE"])
        desktop.autostart = [AutostartEntry(path: "/etc/xdg/autostart/dunst.desktop", text: "[Desktop Entry]\nExec=dunst\n"),
                             AutostartEntry(path: "/etc/xdg/autostart/mako.desktop", text: "[Desktop Entry]\nExec=mako\nOnlyShowIn=sway;\n")]
        let found = Doctor.checks(desktop).filter { $0.check == "other-daemon" }
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found[0].fix, "hide it: printf '[Desktop Entry]\\nHidden=true\\n' > /home/ann/.config/autostart/dunst.desktop")
    }

    // MARK: State, share, log

    func testTheStateDatabase() throws {
        XCTAssertTrue(try check("state", facts(state: .healthy(path: "/s/state.sqlite3"))).ok)
        let broken = try check("state", facts(state: .broken(path: "/s/state.sqlite3", reason: "file is not a database")))
        XCTAssertFalse(broken.ok)
        XCTAssertTrue(broken.fix?.contains("moves the broken file aside") == true)
        let held = try check("state", facts(state: .inUse(folder: "/s", processID: 99)))
        XCTAssertEqual(held.fix, "stop it (kill 99) and start focus-bridge in this session")
        // A running bridge reports its own.
        var running = status()
        running.state?.inMemory = true
        running.state?.problem = "cannot write /s; …"
        XCTAssertEqual(try check("state", facts(status: running)).fix, "cannot write /s; …")
    }

    func testTheShareFolderOnlyWhenSet() throws {
        XCTAssertNil(Doctor.checks(facts()).first { $0.check == "share" })
        var facts = facts()
        facts.share = .init(folder: "/home/ann/Sync/focus", problem: "there is no such folder")
        XCTAssertFalse(try check("share", facts).ok)
        facts.share = .init(folder: "/home/ann/Sync/focus", problem: nil, devices: 1)
        XCTAssertEqual(try check("share", facts).found, "the share folder /home/ann/Sync/focus is there and writable (1 other device seen)")
    }

    func testTheLogsWhereabouts() throws {
        let journal = StatusReport.Log(.init(target: "socket:[123]", journal: true, unit: "focus-bridge.service", processID: 5))
        XCTAssertEqual(journal.read, "journalctl --user -u focus-bridge.service")
        XCTAssertEqual(StatusReport.Log(.init(target: "/home/ann/.xsession-errors", journal: false, unit: nil, processID: 5)).to, "file")
        XCTAssertEqual(StatusReport.Log(.init(target: "/dev/pts/3", journal: false, unit: nil, processID: 5)).to, "terminal")
        XCTAssertEqual(StatusReport.Log(.init(target: "pipe:[7]", journal: false, unit: nil, processID: 5)).to, "pipe")
        let nowhere = StatusReport.Log(.init(target: "/dev/null", journal: false, unit: nil, processID: 5))
        XCTAssertEqual(nowhere.to, "nowhere")
        XCTAssertFalse(try check("log", facts(status: status(log: nowhere))).ok)
        XCTAssertTrue(try check("log", facts(status: status(log: journal))).ok)
        XCTAssertEqual(StatusReport.Log.unit(fromCgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/focus-bridge.service\n")?.name,
                       "focus-bridge.service")
        XCTAssertNil(StatusReport.Log.unit(fromCgroup: "0::/user.slice/user-1000.slice/session-2.scope\n"))
    }

    func testTheReportsJSONHasItsDocumentedKeys() throws {
        let report = Doctor.Report(Doctor.checks(facts()))
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(JSONText.encode(report).utf8)) as? [String: Any])
        XCTAssertEqual(Set(json.keys), ["ok", "checks"])
        let checks = try XCTUnwrap(json["checks"] as? [[String: Any]])
        XCTAssertFalse(checks.isEmpty)
        for check in checks { XCTAssertEqual(Set(check.keys), ["check", "ok", "found", "fix"]) }
        // A check that is fine has a null fix, never a missing one.
        XCTAssertTrue(checks.contains { $0["fix"] is NSNull })
    }
}
