import FocusBridgeConfig
import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeServer
import Foundation
import XCTest

final class DownstreamPlanTests: XCTestCase {
    private func settings(_ mode: DownstreamSettings.Mode, command: [String] = [], address: String? = nil) -> DownstreamSettings {
        var settings = DownstreamSettings()
        settings.mode = mode
        settings.command = command
        settings.address = address
        return settings
    }

    /// A folder with an executable `name` in it, for PATH.
    private func folder(with names: [String]) throws -> String {
        let path = NSTemporaryDirectory() + "plan-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for name in names {
            FileManager.default.createFile(atPath: "\(path)/\(name)", contents: Data("#!/bin/sh\n".utf8),
                                           attributes: [.posixPermissions: 0o755])
        }
        return path
    }

    func testAutoPrefersGNOMEShellInAGNOMESession() throws {
        let path = try folder(with: ["dunst"])
        let plan = try DownstreamPlan.resolve(settings(.auto), environment: ["XDG_CURRENT_DESKTOP": "ubuntu:GNOME", "PATH": path],
                                              nameOwner: { $0 == "org.gnome.Shell" ? ":1.3" : nil })
        XCTAssertEqual(plan.target, .name("org.gnome.Shell"))
    }

    func testAutoWaitsForTheShellOfGNOMEOrPlasmaRatherThanRunADaemon() throws {
        let path = try folder(with: ["mako", "dunst"])
        for (desktop, name) in [("GNOME", "org.gnome.Shell"), ("ubuntu:GNOME", "org.gnome.Shell"), ("KDE", "org.kde.plasmashell")] {
            let plan = try DownstreamPlan.resolve(settings(.auto), environment: ["XDG_CURRENT_DESKTOP": desktop, "PATH": path],
                                                  nameOwner: { _ in nil })
            XCTAssertEqual(plan.target, .name(name), "the shell starts after the bridge: wait for it (\(desktop))")
            XCTAssertTrue(plan.reason.contains("once it is on the session bus"), plan.reason)
        }
    }

    func testAutoSpawnsTheFirstInstalledDaemonElsewhere() throws {
        let path = try folder(with: ["mako", "dunst"])
        for desktop in ["sway", "GNOME-Flashback:GNOME", "XFCE", ""] {
            let plan = try DownstreamPlan.resolve(settings(.auto), environment: ["XDG_CURRENT_DESKTOP": desktop, "PATH": path],
                                                  nameOwner: { _ in nil },
                                                  search: DaemonSearch(path: [path], libraryFolders: []))
            XCTAssertEqual(plan.target, .spawn(command: ["\(path)/dunst"]), "dunst comes before mako (\(desktop))")
        }
    }

    func testAutoFallsBackToTheLog() throws {
        let plan = try DownstreamPlan.resolve(settings(.auto), environment: ["PATH": try folder(with: [])], nameOwner: { _ in nil },
                                              search: DaemonSearch(path: [try folder(with: [])], libraryFolders: []))
        XCTAssertEqual(plan.target, .log)
        XCTAssertTrue(plan.reason.contains("none of dunst, mako, swaync, xfce4-notifyd, notification-daemon, lxqt-notificationd"),
                      plan.reason)
    }

    /// A library folder holding `relativePath` as an executable.
    private func library(with relativePaths: [String]) throws -> String {
        let root = try folder(with: [])
        for relative in relativePaths {
            let file = "\(root)/\(relative)"
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: file, contents: Data("#!/bin/sh\n".utf8), attributes: [.posixPermissions: 0o755])
        }
        return root
    }

    func testNotificationDaemonIsFoundInItsLibraryFolder() throws {
        let lib = try library(with: ["notification-daemon/notification-daemon"])
        let plan = try DownstreamPlan.resolve(settings(.auto), environment: [:], nameOwner: { _ in nil },
                                              search: DaemonSearch(path: [try folder(with: [])], libraryFolders: [lib]))
        XCTAssertEqual(plan.target, .spawn(command: ["\(lib)/notification-daemon/notification-daemon"]))
        XCTAssertTrue(plan.reason.contains("notification-daemon is the first installed"), plan.reason)
        XCTAssertEqual(plan.fallbacks, [])
    }

    func testTheMultiarchFolderIsSearchedForXfce4Notifyd() throws {
        let search = DaemonSearch.standard(environment: ["PATH": "/nonexistent", DaemonSearch.libraryFoldersVariable: "/a:/b"])
        XCTAssertEqual(search.libraryFolders, ["/a", "/b"])
        let standard = DaemonSearch.standard(environment: ["PATH": "/nonexistent"])
        XCTAssertEqual(Array(standard.libraryFolders.suffix(2)), ["/usr/lib", "/usr/libexec"])
        XCTAssertTrue(standard.libraryFolders.dropLast(2).allSatisfy { $0.hasPrefix("/usr/lib/") && $0.contains("-linux-") },
                      "\(standard.libraryFolders)")
        let lib = try library(with: ["xfce4/notifyd/xfce4-notifyd", "notification-daemon/notification-daemon"])
        let path = try folder(with: ["lxqt-notificationd"])
        let plan = try DownstreamPlan.resolve(settings(.auto), environment: [:], nameOwner: { _ in nil },
                                              search: DaemonSearch(path: [path], libraryFolders: [lib]))
        XCTAssertEqual(plan.target, .spawn(command: ["\(lib)/xfce4/notifyd/xfce4-notifyd"]))
        XCTAssertEqual(plan.fallbacks, [["\(lib)/notification-daemon/notification-daemon"], ["\(path)/lxqt-notificationd"]],
                       "the other installed daemons, in auto's order")
    }

    func testSwayncsControlNameIsPassedThroughWithoutConfiguration() throws {
        let path = try folder(with: ["swaync"])
        let plan = try DownstreamPlan.resolve(settings(.auto), environment: [:], nameOwner: { _ in nil },
                                              search: DaemonSearch(path: [path], libraryFolders: []))
        XCTAssertEqual(plan.target, .spawn(command: ["\(path)/swaync"]))
        XCTAssertEqual(plan.passthroughNames, ["org.erikreider.swaync.cc"])

        var configured = settings(.spawn, command: ["swaync", "--skip-system-css"])
        configured.passthroughNames = ["org.erikreider.swaync.cc", "org.example.Other"]
        XCTAssertEqual(try DownstreamPlan.resolve(configured, environment: [:], nameOwner: { _ in nil }).passthroughNames,
                       ["org.erikreider.swaync.cc", "org.example.Other"], "listed once")
        let dunst = try DownstreamPlan.resolve(settings(.spawn, command: ["dunst"]), environment: [:], nameOwner: { _ in nil })
        XCTAssertEqual(dunst.passthroughNames, [])
        XCTAssertEqual(dunst.fallbacks, [], "a configured command falls back to the log")
    }

    func testReplaceRunsTheEvictedOwnersCommand() throws {
        let path = try folder(with: ["dunst"])
        let command = ["/usr/lib/notification-daemon/notification-daemon", "--replace"]
        let resolve = { (replacing: Bool) in
            try DownstreamPlan.resolve(self.settings(.auto), environment: ["XDG_CURRENT_DESKTOP": "MATE"],
                                       nameOwner: { $0 == "org.freedesktop.Notifications" ? ":1.9" : nil },
                                       processID: { _ in 4242 },
                                       process: { _ in .init(executable: "notification-daemon", command: command) },
                                       replacing: replacing, search: DaemonSearch(path: [path], libraryFolders: []))
        }
        let plan = try resolve(true)
        XCTAssertEqual(plan.target, .spawn(command: command))
        XCTAssertEqual(plan.evicted?.processID, 4242)
        XCTAssertEqual(plan.fallbacks, [["\(path)/dunst"]])
        XCTAssertTrue(plan.reason.contains("--replace takes org.freedesktop.Notifications from notification-daemon (PID 4242, :1.9)"),
                      plan.reason)
        let without = try resolve(false)
        XCTAssertEqual(without.target, .spawn(command: ["\(path)/dunst"]), "without --replace: the installed daemon")
        XCTAssertNil(without.evicted)
    }

    func testAStandaloneDaemonInTheWayStillHasAPlan() throws {
        let path = try folder(with: ["mako"])
        XCTAssertThrowsError(try DownstreamPlan.resolve(
            settings(.auto), environment: [:], nameOwner: { $0 == "org.freedesktop.Notifications" ? ":1.4" : nil },
            processID: { _ in 77 }, process: { _ in .init(executable: "mako", command: ["mako"]) },
            search: DaemonSearch(path: [path], libraryFolders: []))) { error in
            let error = error as! PlanError
            XCTAssertEqual(error.runningDaemon?.processID, 77)
            XCTAssertEqual(error.plan?.target, .spawn(command: ["\(path)/mako"]))
            XCTAssertTrue(error.plan!.line.hasPrefix("spawn: \(path)/mako ("))
        }
    }

    func testReplaceNeverRunsGNOMEShellOrAnotherBridgeBehindItself() throws {
        let path = try folder(with: ["dunst"])
        for executable in ["gjs-console", "focus-bridge", "plasmashell"] {
            let plan = try DownstreamPlan.resolve(settings(.auto), environment: [:],
                                                  nameOwner: { $0 == "org.freedesktop.Notifications" ? ":1.9" : nil },
                                                  processID: { _ in 1 },
                                                  process: { _ in .init(executable: executable, command: ["/usr/bin/\(executable)"]) },
                                                  replacing: true, search: DaemonSearch(path: [path], libraryFolders: []))
            XCTAssertEqual(plan.target, .spawn(command: ["\(path)/dunst"]), executable)
            XCTAssertNil(plan.evicted)
        }
    }

    func testTheSentenceSaysWhichDaemonWouldRunOnceTheRunningOneIsStopped() throws {
        let path = try folder(with: ["dunst", "mako"])
        let owned = { (running: String) -> String in
            do {
                _ = try DownstreamPlan.resolve(
                    self.settings(.auto), environment: [:], nameOwner: { $0 == "org.freedesktop.Notifications" ? ":1.4" : nil },
                    processID: { _ in 77 }, process: { _ in .init(executable: running, command: [running]) },
                    search: DaemonSearch(path: [path], libraryFolders: []))
            } catch { return "\(error)" }
            return ""
        }
        let mako = owned("mako")
        XCTAssertTrue(mako.contains("it then runs dunst, the first installed, on a bus of its own (to keep mako, set "
                                    + "command = [\"mako\"] in the [downstream] table)."), mako)
        XCTAssertFalse(mako.contains(". "), "one sentence: \(mako)")
        XCTAssertTrue(owned("dunst").hasSuffix("it then runs dunst itself, on a bus of its own."))
    }

    func testAddressModeNeedsAnAddress() {
        XCTAssertThrowsError(try DownstreamPlan.resolve(settings(.address), environment: [:], nameOwner: { _ in nil }))
        XCTAssertEqual(try DownstreamPlan.resolve(settings(.address, address: "unix:path=/x"), environment: [:], nameOwner: { _ in nil }).target,
                       .address("unix:path=/x", name: "org.freedesktop.Notifications"))
    }

    func testAnExplicitCommandIsKept() throws {
        XCTAssertEqual(try DownstreamPlan.resolve(settings(.spawn, command: ["dunst", "-config", "x"]), environment: [:],
                                                  nameOwner: { _ in nil }).target,
                       .spawn(command: ["dunst", "-config", "x"]))
    }
}
