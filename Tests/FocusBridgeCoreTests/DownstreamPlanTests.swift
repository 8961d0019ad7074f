import FocusBridgeConfig
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

    func testAutoSpawnsTheFirstInstalledDaemonWhenGNOMEShellIsNotThere() throws {
        let path = try folder(with: ["mako", "dunst"])
        let plan = try DownstreamPlan.resolve(settings(.auto), environment: ["XDG_CURRENT_DESKTOP": "GNOME", "PATH": path],
                                              nameOwner: { _ in nil })
        XCTAssertEqual(plan.target, .spawn(command: ["\(path)/dunst"]), "dunst comes before mako")
    }

    func testAutoFallsBackToTheLog() throws {
        let plan = try DownstreamPlan.resolve(settings(.auto), environment: ["PATH": try folder(with: [])], nameOwner: { _ in nil })
        XCTAssertEqual(plan.target, .log)
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
