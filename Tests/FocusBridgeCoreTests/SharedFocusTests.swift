import FocusBridgeCore
import FocusBridgeJSON
import FocusBridgeTime
import Foundation
import XCTest

/// The merge rules of `[share]`: which files count, how a device file is read, and
/// which change wins — without a folder or a clock.
final class SharedFocusTests: XCTestCase {
    private let t0 = Instant(timeIntervalSince1970: 1_795_000_000) // 2026-11-18
    private func at(_ seconds: Double) -> Instant { t0.addingTimeInterval(seconds) }

    private func record(_ device: String, _ sequence: UInt64, _ focus: String?, changed: Double,
                        since: Double? = nil, until: Double? = nil) -> SharedFocusRecord {
        SharedFocusRecord(device: device, sequence: sequence,
                          change: SharedChange(focus: focus, since: at(since ?? changed), until: until.map(at), changed: at(changed)),
                          version: "0.1.0")
    }

    private func file(_ json: String, device: String = "laptop") -> Result<SharedFocusRecord, SharedFocus.Unreadable> {
        SharedFocus.decode(Array(json.utf8), device: device)
    }

    // MARK: Names

    func testDeviceFilesAndEverythingElse() {
        XCTAssertEqual(SharedFocus.device(ofFile: "laptop.json"), "laptop")
        XCTAssertEqual(SharedFocus.device(ofFile: "desk-01.home.json"), "desk-01.home")
        XCTAssertEqual(SharedFocus.device(ofFile: "Work_PC.json"), "Work_PC")
        let ignored = [
            // conflict copies: Syncthing, Nextcloud/ownCloud, Dropbox
            "laptop.sync-conflict-20261122-101500-ABCDEFG.json",
            "laptop.sync-conflict-20261122-101500-ABCDEFG",
            "laptop (conflicted copy 2026-11-22 101500).json",
            "laptop (Ann's conflicted copy 2026-11-22).json",
            "laptop (conflict 2026-11-22).json",
            // temporary and partial files: Syncthing (Unix, Windows), editors, Nextcloud, ours
            ".syncthing.laptop.json.tmp", "~syncthing~laptop.json.tmp", "laptop.json~", "laptop.json.tmp",
            ".laptop.json.part", "laptop.json.part", ".laptop.json", ".laptop.json.tmp-1234",
            // anything else
            "laptop.JSON", "laptop", ".json", "README.md", "a/b.json", "lap top.json", "läptop.json",
            String(repeating: "x", count: 65) + ".json",
        ]
        for name in ignored { XCTAssertNil(SharedFocus.device(ofFile: name), name) }
        XCTAssertEqual(SharedFocus.fileName(of: "laptop"), "laptop.json")
    }

    func testTheDefaultDeviceNameIsTheHostName() {
        XCTAssertEqual(SharedFocus.deviceName(host: "laptop"), "laptop")
        XCTAssertEqual(SharedFocus.deviceName(host: "desk.example.org"), "desk.example.org")
        XCTAssertEqual(SharedFocus.deviceName(host: "Ann's Mac"), "Ann-s-Mac")
        XCTAssertEqual(SharedFocus.deviceName(host: ".hidden"), "hidden")
        XCTAssertEqual(SharedFocus.deviceName(host: ""), "device")
        XCTAssertEqual(SharedFocus.deviceName(host: String(repeating: "h", count: 300)).utf8.count, 64)
        XCTAssertTrue(SharedFocus.isValidDevice(SharedFocus.deviceName(host: "ünïcode/host\n")))
    }

    // MARK: Files

    func testAFileWrittenIsReadBackTheSame() throws {
        var ledger = ShareLedger()
        let written = ledger.recordOwn(focus: "work", until: at(3600), device: "laptop", version: "0.1.0", at: at(0.1234))
        let read = try file(String(decoding: SharedFocus.encode(written), as: UTF8.self)).get()
        XCTAssertEqual(read.sequence, 1)
        XCTAssertEqual(read.change?.focus, "work")
        XCTAssertEqual(read.key, written.key, "the order stamp survives the file to the millisecond")
        XCTAssertEqual(Timestamp.string(read.change!.since), "2026-11-18T11:06:40.123Z")
        XCTAssertEqual(Timestamp.string(read.change!.until!), "2026-11-18T12:06:40.000Z")
        let off = ledger.recordOwn(focus: nil, until: nil, device: "laptop", version: "0.1.0", at: at(60))
        let json = String(decoding: SharedFocus.encode(off), as: UTF8.self)
        XCTAssertTrue(json.contains("\"focus\":null") && json.contains("\"until\":null"), json)
        XCTAssertEqual(try file(json).get().change?.focus, nil)
        XCTAssertEqual(try file(json).get().sequence, 2)
    }

    func testUnknownFieldsOfANewerVersionAreIgnored() throws {
        let read = try file("""
            {"device":"laptop","sequence":7,"focus":"work","since":"2026-11-22T10:00:00.000Z","until":null,
             "changed":"2026-11-22T10:00:00.000Z","version":"9.0.0","colour":"blue","extra":{"a":[1,2,{"b":null}]}}
            """).get()
        XCTAssertEqual(read.sequence, 7)
        XCTAssertEqual(read.version, "9.0.0")
        XCTAssertEqual(read.change?.focus, "work")
        XCTAssertNil(read.change?.until)
    }

    func testAFileWithoutAChangeYetIsAPresence() throws {
        let read = try file(#"{"device":"laptop","sequence":0,"focus":null,"since":null,"until":null,"changed":null,"version":"0.1.0"}"#).get()
        XCTAssertNil(read.change)
        XCTAssertNil(read.key)
    }

    func testAnOlderWriterWithoutChangedOrdersBySince() throws {
        let read = try file(#"{"device":"laptop","sequence":1,"focus":"work","since":"2026-11-22T10:00:00.000Z"}"#).get()
        XCTAssertEqual(read.change?.changed, read.change?.since)
    }

    func testGarbledTruncatedAndHostileFilesAreRefusedWithAReason() {
        let good = #"{"device":"laptop","sequence":3,"focus":"work","since":"2026-11-22T10:00:00.000Z","until":null,"changed":"2026-11-22T10:00:00.000Z","version":"0.1.0"}"#
        XCTAssertNoThrow(try file(good).get())
        let cases: [(String, SharedFocus.Unreadable)] = [
            (String(good.prefix(60)), .notJSON),                       // cut short mid-write
            ("", .notJSON),
            ("\u{0}\u{0}\u{0}\u{0}", .notJSON),                        // a preallocated, unwritten file
            ("[1,2,3]", .notJSON),
            ("null", .notJSON),
            (String(repeating: "[", count: 10_000), .notJSON),         // deep nesting is not recursed into
            (String(repeating: "{\"a\":", count: 20) + "1" + String(repeating: "}", count: 20), .notJSON),
            (good.replacingOccurrences(of: "\"laptop\"", with: "\"desk\""), .wrongDevice("desk")),
            (#"{"sequence":3}"#, .invalid("it has no \"device\"")),
            (good.replacingOccurrences(of: "\"sequence\":3", with: "\"sequence\":\"3\""), .notJSON),
            (good.replacingOccurrences(of: "\"sequence\":3", with: "\"sequence\":-3"), .notJSON),
            (good.replacingOccurrences(of: "\"sequence\":3", with: "\"sequence\":18446744073709551615"),
             .invalid("its \"sequence\" is missing or out of range")),
            (good.replacingOccurrences(of: "\"sequence\":3,", with: ""), .invalid("its \"sequence\" is missing or out of range")),
            (good.replacingOccurrences(of: "\"since\":\"2026-11-22T10:00:00.000Z\"", with: "\"since\":\"yesterday\""),
             .invalid("its \"since\" is not a time (yesterday)")),
            (good.replacingOccurrences(of: "\"since\":\"2026-11-22T10:00:00.000Z\"", with: "\"since\":null"),
             .invalid("it has no \"since\"")),
            (good.replacingOccurrences(of: "\"until\":null", with: "\"until\":\"0000-01-01T00:00:00.000Z\""),
             .invalid("its \"until\" is not a time (0000-01-01T00:00:00.000Z)")),
            (good.replacingOccurrences(of: "\"focus\":\"work\"", with: "\"focus\":\"\""), .invalid("its \"focus\" is not a Focus name")),
            (good.replacingOccurrences(of: "\"focus\":\"work\"", with: "\"focus\":\"\(String(repeating: "w", count: 300))\""),
             .invalid("its \"focus\" is not a Focus name")),
            (good.replacingOccurrences(of: "\"focus\":\"work\"", with: "\"focus\":42"), .notJSON),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(file(text).failure, expected, String(text.prefix(80)))
        }
        let huge = "{\"device\":\"laptop\",\"pad\":\"" + String(repeating: "x", count: SharedFocus.maxFileBytes) + "\"}"
        XCTAssertEqual(file(huge).failure, .tooLarge(huge.utf8.count))
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = (0..<Int.random(in: 0..<300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            XCTAssertNotNil(SharedFocus.decode(bytes, device: "laptop").failure)
        }
        // Every cut of a good file is refused, never taken half.
        for length in 0..<good.utf8.count - 1 {
            XCTAssertNotNil(file(String(good.utf8.prefix(length))!).failure, "\(length)")
        }
    }

    // MARK: Merging

    func testTheNewestChangeOfAnotherDeviceIsApplied() {
        var ledger = ShareLedger()
        let outcome = ledger.merge([record("laptop", 1, "work", changed: 10, until: 3610)], ownDevice: "desk", at: at(12))
        XCTAssertEqual(outcome.apply, SharedApply(device: "laptop", focus: "work", since: at(10), until: at(3610)))
        XCTAssertEqual(ledger.devices["laptop"]?.applied, true)
        XCTAssertEqual(ledger.devices["laptop"]?.seen, at(12))
        XCTAssertEqual(ledger.newest, SharedFocusRecord.Key(changed: at(10), device: "laptop"))
    }

    func testEachChangeIsAppliedOnce() {
        var ledger = ShareLedger()
        let first = record("laptop", 4, "work", changed: 10)
        XCTAssertNotNil(ledger.merge([first], ownDevice: "desk", at: at(11)).apply)
        // The same file read again (another event, a rescan) changes nothing.
        XCTAssertEqual(ledger.merge([first], ownDevice: "desk", at: at(12)), .init(apply: nil, ignored: ["laptop": .replayed]))
        XCTAssertEqual(ledger.devices["laptop"]?.seen, at(11), "seen when first read")
        // An older version of the file put back by the sync engine, even with a newer stamp.
        let replay = record("laptop", 3, "dnd", changed: 50)
        XCTAssertEqual(ledger.merge([replay], ownDevice: "desk", at: at(60)).ignored, ["laptop": .replayed])
        XCTAssertEqual(ledger.devices["laptop"]?.sequence, 4)
        // The next change is taken.
        XCTAssertEqual(ledger.merge([record("laptop", 5, nil, changed: 70)], ownDevice: "desk", at: at(71)).apply?.focus, .some(nil))
    }

    func testAChangeOlderThanThisDevicesOwnIsIgnored() {
        var ledger = ShareLedger()
        _ = ledger.recordOwn(focus: "work", until: nil, device: "desk", version: "0.1.0", at: at(100))
        // The laptop's change was made before (and synced late).
        let outcome = ledger.merge([record("laptop", 1, "dnd", changed: 90)], ownDevice: "desk", at: at(120))
        XCTAssertNil(outcome.apply)
        XCTAssertEqual(outcome.ignored, ["laptop": .older])
        XCTAssertEqual(ledger.devices["laptop"]?.applied, false, "seen, not applied")
        XCTAssertEqual(ledger.devices["laptop"]?.notApplied, .older)
        XCTAssertEqual(ledger.devices["laptop"]?.sequence, 1)
        // One made after is.
        XCTAssertEqual(ledger.merge([record("laptop", 2, "dnd", changed: 130)], ownDevice: "desk", at: at(131)).apply?.focus, "dnd")
    }

    func testAChangeThisDeviceCannotApplyIsToldIgnoredWithWhy() {
        var ledger = ShareLedger()
        let outcome = ledger.merge([record("laptop", 1, "gym", changed: 10)], ownDevice: "desk", at: at(11))
        XCTAssertEqual(outcome.apply?.focus, "gym")
        XCTAssertEqual(ledger.devices["laptop"]?.applied, true)
        ledger.notApplied("laptop", because: .unknownFocus)
        XCTAssertEqual(ledger.devices["laptop"]?.applied, false)
        XCTAssertEqual(ledger.devices["laptop"]?.notApplied, .unknownFocus)
        // Stamped far ahead: seen, ignored, and why.
        _ = ledger.merge([record("tablet", 1, "work", changed: 11 + 2 * SharedFocus.maxSkew)], ownDevice: "desk", at: at(12))
        XCTAssertEqual(ledger.devices["tablet"]?.notApplied, .farFuture)
    }

    func testThisDevicesOwnFileIsNeverApplied() {
        var ledger = ShareLedger()
        let outcome = ledger.merge([record("desk", 9, "work", changed: 10)], ownDevice: "desk", at: at(11))
        XCTAssertNil(outcome.apply)
        XCTAssertEqual(outcome.ignored, ["desk": .ownDevice])
        XCTAssertTrue(ledger.devices.isEmpty)
    }

    func testOfSeveralNewChangesTheNewestAloneIsApplied() {
        var ledger = ShareLedger()
        let outcome = ledger.merge([record("a", 1, "work", changed: 30), record("c", 1, "dnd", changed: 50),
                                    record("b", 1, nil, changed: 40)], ownDevice: "desk", at: at(60))
        XCTAssertEqual(outcome.apply?.device, "c")
        XCTAssertEqual(outcome.ignored, ["a": .older, "b": .older])
        XCTAssertEqual(ledger.devices.count, 3)
        XCTAssertEqual(ledger.devices.values.filter(\.applied).count, 1)
    }

    func testTwoDevicesChangingAtTheSameMomentConvergeOnTheGreaterName() {
        // Both change at the same millisecond; each reads the other's file.
        var laptop = ShareLedger(), desk = ShareLedger()
        let fromLaptop = laptop.recordOwn(focus: "work", until: nil, device: "laptop", version: "0.1.0", at: at(10.0004))
        let fromDesk = desk.recordOwn(focus: nil, until: nil, device: "desk", version: "0.1.0", at: at(10.0001))
        // Through the files, as the other device reads them.
        let readLaptop = try! SharedFocus.decode(SharedFocus.encode(fromLaptop), device: "laptop").get()
        let readDesk = try! SharedFocus.decode(SharedFocus.encode(fromDesk), device: "desk").get()
        XCTAssertEqual(Timestamp.string(readLaptop.change!.changed), Timestamp.string(readDesk.change!.changed))
        let atDesk = desk.merge([readLaptop], ownDevice: "desk", at: at(11))
        let atLaptop = laptop.merge([readDesk], ownDevice: "laptop", at: at(11))
        // "laptop" > "desk": the desk takes the laptop's change, the laptop keeps its own.
        XCTAssertEqual(atDesk.apply?.focus, "work")
        XCTAssertNil(atLaptop.apply)
        XCTAssertEqual(atLaptop.ignored, ["desk": .older])
        XCTAssertEqual(desk.newest, laptop.newest)
    }

    func testAChangeStampedInTheFutureIsTakenAndStartsNow() {
        var ledger = ShareLedger()
        // The laptop's clock is an hour ahead: its change says 3600, here it is 5.
        let outcome = ledger.merge([record("laptop", 1, "work", changed: 3600, until: 7200)], ownDevice: "desk", at: at(5))
        XCTAssertEqual(outcome.apply, SharedApply(device: "laptop", focus: "work", since: at(5), until: at(7200)),
                       "taken at once, and it lasts to its own until, not a moment less")
    }

    func testAChangeStampedMoreThanADayAheadIsIgnoredOnce() {
        var ledger = ShareLedger()
        let broken = record("laptop", 1, "work", changed: 86_400 * 400)
        XCTAssertEqual(ledger.merge([broken], ownDevice: "desk", at: at(0)), .init(apply: nil, ignored: ["laptop": .farFuture]))
        XCTAssertNil(ledger.newest, "it does not drag the order of later changes a year ahead")
        XCTAssertEqual(ledger.merge([broken], ownDevice: "desk", at: at(1)).ignored, ["laptop": .replayed])
        XCTAssertEqual(ledger.devices["laptop"]?.applied, false)
        // Its next change, from a clock set right, is taken.
        XCTAssertEqual(ledger.merge([record("laptop", 2, "dnd", changed: 5)], ownDevice: "desk", at: at(6)).apply?.focus, "dnd")
        // A day ahead is still skew.
        XCTAssertNotNil(ledger.merge([record("laptop", 3, nil, changed: 86_000)], ownDevice: "desk", at: at(7)).apply)
    }

    func testAChangeMadeAfterSeeingAFutureStampStillCountsAsNewer() {
        // The desk's clock is behind: after taking the laptop's future-stamped change, its own
        // next change must win everywhere, or the two would disagree for an hour.
        var desk = ShareLedger(), laptop = ShareLedger()
        let laptopChange = laptop.recordOwn(focus: "work", until: nil, device: "laptop", version: "0.1.0", at: at(3600))
        XCTAssertNotNil(desk.merge([laptopChange], ownDevice: "desk", at: at(5)).apply)
        let deskOff = desk.recordOwn(focus: nil, until: nil, device: "desk", version: "0.1.0", at: at(10))
        XCTAssertGreaterThan(deskOff.key!, laptopChange.key!)
        XCTAssertEqual(Timestamp.string(deskOff.change!.since), Timestamp.string(at(10)), "its since stays the desk's own clock")
        let atLaptop = laptop.merge([deskOff], ownDevice: "laptop", at: at(3601))
        XCTAssertEqual(atLaptop.apply?.focus, .some(nil), "the laptop turns off too")
    }

    func testAChangeFromAClockBehindKeepsItsOwnUntil() {
        var ledger = ShareLedger()
        // Written an hour "ago" by a clock that is behind, for an hour and a half.
        let outcome = ledger.merge([record("laptop", 1, "work", changed: -3600, until: 1800)], ownDevice: "desk", at: at(0))
        XCTAssertEqual(outcome.apply?.since, at(-3600))
        XCTAssertEqual(outcome.apply?.until, at(1800))
    }

    func testAtMostMaxDevicesAreFollowed() {
        var ledger = ShareLedger()
        let many = (0..<(SharedFocus.maxDevices + 5)).map { record(String(format: "d%03d", $0), 1, nil, changed: Double($0)) }
        let outcome = ledger.merge(many, ownDevice: "desk", at: at(100))
        XCTAssertEqual(ledger.devices.count, SharedFocus.maxDevices)
        XCTAssertEqual(outcome.ignored.values.filter { $0 == .tooManyDevices }.count, 5)
        XCTAssertEqual(outcome.ignored["d068"], .tooManyDevices, "the names after the first 64 wait")
        // Forgetting one makes room.
        XCTAssertTrue(ledger.forget("d000"))
        XCTAssertEqual(ledger.merge([record("d064", 1, "work", changed: 500)], ownDevice: "desk", at: at(500)).apply?.device, "d064")
    }

    func testAForgottenDeviceComesBackOnlyWithANewChange() {
        var ledger = ShareLedger()
        _ = ledger.merge([record("old", 3, "work", changed: 10)], ownDevice: "desk", at: at(11))
        XCTAssertTrue(ledger.forget("old"))
        XCTAssertFalse(ledger.forget("old"))
        XCTAssertFalse(ledger.forget("never"))
        // Its file is still in the folder: read again, it stays forgotten.
        XCTAssertEqual(ledger.merge([record("old", 3, "work", changed: 10)], ownDevice: "desk", at: at(20)).ignored, ["old": .replayed])
        XCTAssertNil(ledger.devices["old"])
        // It makes a new change: it is back.
        XCTAssertEqual(ledger.merge([record("old", 4, "dnd", changed: 30)], ownDevice: "desk", at: at(31)).apply?.focus, "dnd")
        XCTAssertNotNil(ledger.devices["old"])
        XCTAssertTrue(ledger.forgotten.isEmpty)
    }

    func testThisDevicesFileFromBeforeALostStateIsContinued() throws {
        // The state file was lost; the folder still has the device's file with sequence 41.
        var ledger = ShareLedger()
        ledger.adopt(ownFile: record("desk", 41, "work", changed: 10))
        let next = ledger.recordOwn(focus: nil, until: nil, device: "desk", version: "0.1.0", at: at(20))
        XCTAssertEqual(next.sequence, 42, "others, who took 41, take this one")
        ledger.adopt(ownFile: record("desk", 40, "dnd", changed: 5))
        XCTAssertEqual(ledger.sequence, 42, "an older file of its own is not gone back to")
    }

    func testTheLedgerSurvivesTheStoreAndRefusesPoison() throws {
        var ledger = ShareLedger()
        _ = ledger.recordOwn(focus: "work", until: at(60), device: "desk", version: "0.1.0", at: at(0))
        _ = ledger.merge([record("laptop", 2, nil, changed: 30)], ownDevice: "desk", at: at(31))
        let text = JSONText.encode(ledger)
        let back = try JSONText.decode(ShareLedger.self, from: text)
        XCTAssertEqual(back, ledger)
        XCTAssertTrue(back.isPlausible)
        var poisoned = ledger
        poisoned.devices["laptop"]?.seen = Instant(timeIntervalSince1970: 1e300)
        XCTAssertFalse(poisoned.isPlausible)
    }

    func testASharedManualChangeShowsItsDevice() {
        let work = FocusProfile(name: "work")
        let engine = FocusEngine(focuses: [work], timeZone: TimeZoneRules.utc)
        let shared = ManualFocus(state: .on("work"), since: at(0), until: nil, device: "laptop")
        XCTAssertEqual(engine.active(at: at(1), manual: shared)?.source, .shared)
        XCTAssertEqual(engine.active(at: at(1), manual: shared)?.device, "laptop")
        let own = ManualFocus(state: .on("work"), since: at(0), until: nil)
        XCTAssertEqual(engine.active(at: at(1), manual: own)?.source, .manual)
        // A manual Focus stored before sharing existed reads back without a device.
        let old = try? JSONDecoder().decode(ManualFocus.self, from: Data(#"{"state":{"off":{}},"since":0}"#.utf8))
        XCTAssertEqual(old?.device, nil)
        XCTAssertEqual(old?.state, .off)
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
