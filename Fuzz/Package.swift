// swift-tools-version: 6.0
//
// FocusBridge's libFuzzer targets: a package of its own that depends on the product's package
// (`..`) through its library products, as swift-protobuf's FuzzTesting/ does. The fuzzers are
// built from the very modules focus-bridge is built from, instrumented (`--sanitize=fuzzer
// --sanitize=address`), and the product's Package.swift gains no fuzz-only targets: `swift build`
// there never sees them. `make test` builds this package and replays the committed seeds and
// reproducers (`scripts/fuzz.sh --replay`), so it cannot drift from the product.
//
// The fuzzers reach the server's internal decoding through `@testable import`, which needs the
// modules built with -enable-testing (scripts/fuzz.sh passes it to the whole build, the
// product's modules included), so the product's API is not widened for fuzzing.
//
// Build and run with `make fuzz` (scripts/fuzz.sh); see README.md.
import PackageDescription

let package = Package(
    name: "FocusBridgeFuzz",
    dependencies: [
        .package(name: "FocusBridge", path: ".."),
    ],
    targets: [
        // What the fuzz targets share: the Notify pipeline and the policy contexts it runs under.
        .target(name: "FuzzSupport", dependencies: [
            .product(name: "FocusBridgeCore", package: "FocusBridge"),
            .product(name: "FocusBridgeControl", package: "FocusBridge"),
            .product(name: "FocusBridgeJSON", package: "FocusBridge"),
            .product(name: "FocusBridgeTime", package: "FocusBridge"),
            .product(name: "FocusBridgeTOML", package: "FocusBridge"),
            .product(name: "FocusBridgeConfig", package: "FocusBridge"),
            .product(name: "FocusBridgeStore", package: "FocusBridge"),
            .product(name: "FocusBridgeLoop", package: "FocusBridge"),
            .product(name: "FocusBridgeDBus", package: "FocusBridge"),
            .product(name: "FocusBridgeServer", package: "FocusBridge"),
        ]),
        // The fuzz targets: each exports LLVMFuzzerTestOneInput; libFuzzer supplies main().
        .executableTarget(name: "fuzz-notify", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-notify-text", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-config", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "fuzz-json", dependencies: ["FuzzSupport"]),
    ]
)
