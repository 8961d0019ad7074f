@testable import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeTime
import Foundation
import XCTest

/// The process's time zone from `TZ` and `/etc/localtime`, read without Foundation. What
/// Foundation's `TimeZone.current` passes over for `/etc/localtime` is passed over here too.
final class SystemTimeZoneTests: XCTestCase {
    private let summer = Instant(timeIntervalSince1970: 1_782_000_000)  // 2026-06-21
    private let winter = Instant(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15

    private func offsets(_ zone: TimeZoneRules) -> [Int] { [zone.offset(at: summer), zone.offset(at: winter)] }

    func testNamesPathsAndRules() {
        XCTAssertEqual(SystemTimeZone.current(tz: "Europe/Berlin").identifier, "Europe/Berlin")
        XCTAssertEqual(offsets(SystemTimeZone.current(tz: "Europe/Berlin")), [7200, 3600])
        XCTAssertEqual(offsets(SystemTimeZone.current(tz: ":America/New_York")), [-14400, -18000])
        XCTAssertEqual(offsets(SystemTimeZone.current(tz: "/usr/share/zoneinfo/Asia/Kathmandu")), [20700, 20700])
        XCTAssertEqual(offsets(SystemTimeZone.current(tz: "CET-1CEST,M3.5.0,M10.5.0/3")), [7200, 3600])
        XCTAssertEqual(offsets(SystemTimeZone.current(tz: "<+0545>-5:45")), [20700, 20700])
        XCTAssertEqual(offsets(SystemTimeZone.current(tz: "UTC")), [0, 0])
        XCTAssertEqual(SystemTimeZone.named("Europe/Berlin"), SystemTimeZone.current(tz: "Europe/Berlin"))
    }

    /// An unknown name, an empty `TZ`, a name that climbs out of the folder, a file that is not
    /// TZif: the zone of `/etc/localtime`, as when `TZ` is unset.
    func testWhatIsNoZoneFallsBackToTheLocalTimeFile() {
        let local = SystemTimeZone.current(tz: nil)
        if let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/etc/localtime"),
           let range = link.range(of: "zoneinfo/") {
            XCTAssertEqual(local.identifier, String(link[range.upperBound...]))
        }
        for tz in ["Nowhere/Bogus", "", ":", "../../../etc/passwd", "/etc/passwd", "Europe//Berlin", ":CET-1CEST,M3.5.0,M10.5.0/3",
                   "CET-1CEST,M3.5.0"] {
            XCTAssertEqual(SystemTimeZone.current(tz: tz), local, tz)
        }
        XCTAssertNil(SystemTimeZone.named("Nowhere/Bogus"))
        XCTAssertNil(SystemTimeZone.named("../zoneinfo/UTC"))
    }
}
