import FocusBridgeTime
import Foundation

/// The zone `name` of the system's tzdata, read as the daemon reads it (the tests read the file;
/// FocusBridgeTime only parses bytes). Fails the test run when the file is not there.
func zone(_ name: String) -> TimeZoneRules {
    let path = "/usr/share/zoneinfo/" + name
    guard let data = FileManager.default.contents(atPath: path) else { fatalError("no \(path): install tzdata") }
    do { return try TimeZoneRules(tzif: [UInt8](data), identifier: name) } catch { fatalError("\(path): \(error)") }
}
