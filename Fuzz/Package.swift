// swift-tools-version: 6.0
//
// FocusBridge's libFuzzer targets: a package of its own, so that the product's Package.swift
// gains no fuzz-only targets and `swift build` / `make test` never see them.
//
// Sources/<product module> are symbolic links to ../../Sources/<module>: the fuzzers are built
// from the very same files as focus-bridge, instrumented (`--sanitize=fuzzer --sanitize=address`).
// The fuzzers reach the server's internal decoding through `@testable import`, which needs the
// modules built with -enable-testing (scripts/fuzz.sh passes it), so the product's API is not
// widened for fuzzing.
//
// Build and run with `make fuzz` (scripts/fuzz.sh); see README.md.
import PackageDescription

let package = Package(
    name: "FocusBridgeFuzz",
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // The product's modules, as declared in ../Package.swift.
        .systemLibrary(name: "CGLib", pkgConfig: "gio-unix-2.0", providers: [.apt(["libglib2.0-dev"])]),
        .target(name: "FocusBridgeCore"),
        .target(name: "FocusBridgeTOML"),
        .target(name: "FocusBridgeConfig", dependencies: ["FocusBridgeCore", "FocusBridgeTOML"]),
        .target(name: "FocusBridgeStore", dependencies: ["FocusBridgeCore", .product(name: "GRDB", package: "GRDB.swift")]),
        .target(name: "FocusBridgeDBus", dependencies: ["CGLib"]),
        .target(name: "FocusBridgeServer", dependencies: [
            "FocusBridgeCore", "FocusBridgeConfig", "FocusBridgeStore", "FocusBridgeDBus",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // What the fuzz targets share: the Notify pipeline and the policy contexts it runs under.
        .target(name: "FuzzSupport", dependencies: ["FocusBridgeCore", "FocusBridgeTOML", "FocusBridgeConfig", "FocusBridgeDBus",
                                                    "FocusBridgeServer"]),
        // The fuzz targets: each exports LLVMFuzzerTestOneInput; libFuzzer supplies main().
        .executableTarget(name: "fuzz-notify", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-notify-text", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-config", dependencies: ["FuzzSupport"]),
    ]
)
