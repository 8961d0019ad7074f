// Only the test targets use this; `swift build -c release` (make release, bench, install) builds
// every target, and XCTest is there for tests only: without it the file is empty.
#if canImport(XCTest)
import Foundation
import XCTest

/// Exit tests for XCTest: a part of a test that might crash the process (a trap, an abort) runs
/// in a child process — this test binary again, selecting only the calling test — so a crash
/// fails that one test instead of ending the whole run.
///
/// The child is told which test it runs by `FOCUS_BRIDGE_EXIT_TEST`; there the body runs in
/// process, and the test passes when the body returns.
public enum ExitTest {
    static let variable = "FOCUS_BRIDGE_EXIT_TEST"

    /// How the child process ended.
    public struct Outcome {
        public let status: Int32
        public let reason: Process.TerminationReason
        public let output: String

        /// The child ran exactly the one test and exited with status 0.
        public var ranAndExitedNormally: Bool {
            reason == .exit && status == 0 && output.contains("Executed 1 test")
        }
    }
}

extension XCTestCase {
    /// The selector of this test for the test binary's command line: `Module.Class/method`.
    private var selector: String {
        let method = name.split(separator: ".").last.map(String.init) ?? name
        return "\(String(reflecting: type(of: self)))/\(method.replacingOccurrences(of: "()", with: ""))"
    }

    /// Runs `body` in a child process and fails the test unless the child exits normally (as
    /// Swift Testing's `#expect(processExitsWith: .success)`).
    public func expectNormalExit(file: StaticString = #filePath, line: UInt = #line, _ body: () -> Void) throws {
        let selector = selector
        if ProcessInfo.processInfo.environment[ExitTest.variable] == selector {
            body()  // the child
            return
        }
        let outcome = try runChild(selector)
        XCTAssertTrue(outcome.ranAndExitedNormally,
                      "the child running \(selector) ended with \(outcome.reason == .exit ? "status" : "signal") \(outcome.status):\n\(outcome.output)",
                      file: file, line: line)
    }

    private func runChild(_ selector: String) throws -> ExitTest.Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = [selector]
        var environment = ProcessInfo.processInfo.environment
        environment[ExitTest.variable] = selector
        environment["SWIFT_BACKTRACE"] = "enable=no"  // a crash is expected to be quick and quiet
        // The child answers "does it trap?"; under `make test-sanitize` LeakSanitizer would end it
        // for XCTest's own objects left at its exit (the same code's leaks are the parent's to find).
        environment["ASAN_OPTIONS"] = [environment["ASAN_OPTIONS"], "detect_leaks=0"].compactMap { $0 }.joined(separator: ":")
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return ExitTest.Outcome(status: process.terminationStatus, reason: process.terminationReason, output: output)
    }
}
#endif
