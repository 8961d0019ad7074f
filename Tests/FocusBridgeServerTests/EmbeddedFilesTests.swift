import FocusBridgeServer
import Foundation
import XCTest

/// The binary serves the interfaces and runs the private bus documented in dbus/, byte for byte.
final class EmbeddedFilesTests: XCTestCase {
    func testEmbeddedTextsMatchTheFilesInDBus() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for (file, text) in EmbeddedFiles.sources {
            let onDisk = try String(contentsOf: root.appendingPathComponent("dbus/\(file)"), encoding: .utf8)
            XCTAssertEqual(text + "\n", onDisk, "dbus/\(file) changed: run scripts/embed-dbus-files.sh")
        }
    }
}
