// swift-tools-version: 6.0
import PackageDescription

/// The hot path's modules (the core and its JSON and time, the store, the main loop and the bus)
/// in a release build: their generic code (ForwardQueue, NotificationTable, …) specialised and
/// their small functions inlined where the server calls them, instead of going through metadata
/// and witness tables per call.
let crossModule: [SwiftSetting] = [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

let package = Package(
    name: "FocusBridge",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "focus-bridge", targets: ["focus-bridge"]),
        .executable(name: "focusctl", targets: ["focusctl"]),
        // The modules, for the fuzz package in Fuzz/ (it depends on this one); not a stable API.
        .library(name: "FocusBridgeCore", targets: ["FocusBridgeCore"]),
        .library(name: "FocusBridgeControl", targets: ["FocusBridgeControl"]),
        .library(name: "FocusBridgeJSON", targets: ["FocusBridgeJSON"]),
        .library(name: "FocusBridgeTime", targets: ["FocusBridgeTime"]),
        .library(name: "FocusBridgeTOML", targets: ["FocusBridgeTOML"]),
        .library(name: "FocusBridgeConfig", targets: ["FocusBridgeConfig"]),
        .library(name: "FocusBridgeStore", targets: ["FocusBridgeStore"]),
        .library(name: "FocusBridgeLoop", targets: ["FocusBridgeLoop"]),
        .library(name: "FocusBridgeDBus", targets: ["FocusBridgeDBus"]),
        .library(name: "FocusBridgeServer", targets: ["FocusBridgeServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // GLib alone from libglib2.0-dev (main loop, timers, GVariant, g_spawn), seen through one
        // shim header: no GIO or GObject, so the daemon does not load them.
        .systemLibrary(name: "CGLib", pkgConfig: "glib-2.0", providers: [.apt(["libglib2.0-dev"])]),
        // sd-bus from libsystemd-dev: the bus hot path, seen by FocusBridgeDBus only (SdBus*, BusMessage).
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // SQLite from libsqlite3-dev, seen by FocusBridgeStore only (SQLite.swift, a small typed wrapper).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libxcb from libxcb1-dev: the window in front on X11 (EWMH properties), seen by X11Windows only.
        .systemLibrary(name: "CXCB", providers: [.apt(["libxcb1-dev"])]),
        // JSON (RFC 8259) in Swift: a value type, a strict parser for untrusted input, a writer,
        // and Codable on top of them.
        .target(name: "FocusBridgeJSON", swiftSettings: crossModule),
        // Time without Foundation: instants, the Gregorian calendar, time zones from TZif bytes and
        // POSIX rules, local wall-clock arithmetic, and the texts of times and durations.
        .target(name: "FocusBridgeTime", swiftSettings: crossModule),
        // The pure core: model and decisions, in folders by concern (docs/ARCHITECTURE.md, Modules);
        // no GLib, no I/O, no process or window-system code.
        .target(name: "FocusBridgeCore", dependencies: ["FocusBridgeJSON", "FocusBridgeTime"], swiftSettings: crossModule),
        // The control contract that focus-bridge serves and focusctl calls: Control1's names and
        // methods (Control1Method), each call's arguments typed (Control1Request, to and from a
        // body the bus's Variant provides), the reports sent over it as JSON, and what both
        // programs read of the session (who owns a name, how the bridge is started). No bus here:
        // its C modules would be loaded into every module that imports this one.
        .target(name: "FocusBridgeControl", dependencies: [
            "FocusBridgeCore", "FocusBridgeJSON", "FocusBridgeTime", "FocusBridgeSystem",
        ]),
        // A TOML 1.0 reader in Swift: typed values, every key and value with its line and column.
        .target(name: "FocusBridgeTOML"),
        // Files, folders, paths and the environment: thin typed calls over Glibc, so the daemon
        // links no Foundation.
        .target(name: "FocusBridgeSystem"),
        // Configuration file loading (TOML).
        .target(name: "FocusBridgeConfig", dependencies: [
            "FocusBridgeCore", "FocusBridgeTime", "FocusBridgeTOML", "FocusBridgeSystem",
        ]),
        // The SQLite state: history, ID high-water mark.
        .target(name: "FocusBridgeStore", dependencies: ["FocusBridgeCore", "FocusBridgeTime", "CSQLite", "FocusBridgeSystem"],
                swiftSettings: crossModule),
        // The GLib main loop and what runs on it apart from the bus: timers (wall-clock ones on a
        // timerfd), idle work, Unix signals, inotify watches of files and folders, child processes;
        // and the heap trim.
        .target(name: "FocusBridgeLoop", dependencies: ["CGLib", "FocusBridgeSystem"], swiftSettings: crossModule),
        // The bus: sd-bus on the main loop, its messages and calls, and GVariant for the cold paths.
        .target(name: "FocusBridgeDBus", dependencies: ["CGLib", "CSystemd", "FocusBridgeLoop", "FocusBridgeSystem"],
                swiftSettings: crossModule),
        // The running service: wires the core, the store and the bus together.
        .target(name: "FocusBridgeServer", dependencies: [
            "FocusBridgeCore", "FocusBridgeControl", "FocusBridgeJSON", "FocusBridgeTime", "FocusBridgeConfig",
            "FocusBridgeStore", "FocusBridgeLoop", "FocusBridgeDBus", "FocusBridgeSystem", "CXCB",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // No swift-argument-parser here: it links FoundationEssentials into the daemon (12 MB of
        // binary, 1.7 MiB of idle RSS); FocusBridgeArguments reads its few options.
        .executableTarget(name: "focus-bridge", dependencies: [
            "FocusBridgeServer", "FocusBridgeConfig", "FocusBridgeControl", "FocusBridgeCore", "FocusBridgeLoop", "FocusBridgeSystem",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "focusctl", dependencies: [
            "FocusBridgeLoop", "FocusBridgeDBus", "FocusBridgeCore", "FocusBridgeControl", "FocusBridgeJSON", "FocusBridgeTime",
            "FocusBridgeConfig", "FocusBridgeStore", "FocusBridgeSystem",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // `make bench`: measures the bridge against the bare bus and dunst (build it with -c release);
        // `focus-bench store`: the history insert alone, for callgrind.
        .executableTarget(name: "focus-bench", dependencies: [
            "FocusBridgeLoop", "FocusBridgeDBus", "FocusBridgeCore", "FocusBridgeControl", "FocusBridgeTime", "FocusBridgeStore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The unit tests: one target per module, each depending only on what it tests (XCTest).
        // The core alone: a test that reads a control report or explain's request is the control's.
        .testTarget(name: "FocusBridgeCoreTests", dependencies: ["FocusBridgeCore", "FocusBridgeJSON", "FocusBridgeTime"]),
        // The control contract: the reports' JSON against Foundation's, explain, doctor, who owns a
        // name; and Control1Method against dbus/org.focusbridge.Control1.xml, read from the
        // repository (the text the server embeds and serves: EmbeddedFilesTests, in the server's).
        // Control1Request's bodies against Control1Method's signatures, with the bus's Variant as
        // the body focusctl sends and the server reads.
        .testTarget(name: "FocusBridgeControlTests", dependencies: [
            "FocusBridgeControl", "FocusBridgeCore", "FocusBridgeJSON", "FocusBridgeTime", "FocusBridgeDBus",
        ]),
        .testTarget(name: "FocusBridgeJSONTests", dependencies: ["FocusBridgeJSON"]),
        // Time zones and the calendar against Foundation's and the system's tzdata.
        .testTarget(name: "FocusBridgeTimeTests", dependencies: ["FocusBridgeTime"]),
        // The TOML reader against the toml-test corpus (../shared/toml-test, skipped when absent).
        .testTarget(name: "FocusBridgeTOMLTests", dependencies: ["FocusBridgeTOML"]),
        .testTarget(name: "FocusBridgeSystemTests", dependencies: ["FocusBridgeSystem"]),
        // focus-bridge's command line (FocusBridgeArguments), through @testable import of the executable.
        .testTarget(name: "FocusBridgeArgumentsTests", dependencies: ["focus-bridge"]),
        // focusctl's own logic (a misspelt command, its options, `--json`, its table and local
        // times, the Focus line), through @testable import of the executable.
        .testTarget(name: "focusctlTests", dependencies: ["focusctl"]),
        .testTarget(name: "FocusBridgeConfigTests", dependencies: [
            "FocusBridgeConfig", "FocusBridgeCore", "FocusBridgeTime", "FocusBridgeTestSupport",
        ]),
        .testTarget(name: "FocusBridgeStoreTests", dependencies: [
            "FocusBridgeStore", "FocusBridgeCore", "FocusBridgeJSON", "FocusBridgeTime",
        ]),
        // The main loop on GLib's real loop: timers, idle work, signals, wall-clock timers, inotify
        // watches and child processes, each awaited with a bounded wait (FocusBridgeTestSupport).
        .testTarget(name: "FocusBridgeLoopTests", dependencies: ["FocusBridgeLoop", "FocusBridgeTestSupport"]),
        .testTarget(name: "FocusBridgeDBusTests", dependencies: [
            "FocusBridgeDBus", "FocusBridgeLoop", "CGLib", "FocusBridgeTestSupport",
        ]),
        .testTarget(name: "FocusBridgeServerTests", dependencies: [
            "FocusBridgeServer", "FocusBridgeConfig", "FocusBridgeControl", "FocusBridgeCore", "FocusBridgeTime",
            "FocusBridgeStore", "FocusBridgeLoop", "FocusBridgeDBus", "FocusBridgeTestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        // What more than one test target uses: exit tests (a test part run in a child process), a
        // private bus, bounded waits on the main loop.
        .target(name: "FocusBridgeTestSupport", dependencies: ["FocusBridgeDBus", "FocusBridgeLoop"], path: "Tests/FocusBridgeTestSupport"),
    ]
)
