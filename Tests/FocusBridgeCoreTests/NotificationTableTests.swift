@testable import FocusBridgeCore
import XCTest

final class NotificationTableTests: XCTestCase {
    let alice = Caller(connection: ":1.5", userID: 1000)
    let aliceScript = Caller(connection: ":1.9", userID: 1000)
    let bob = Caller(connection: ":1.6", userID: 1001)
    let flatpak = Caller(connection: ":1.7", userID: 1000, sandbox: "flatpak:org.example.Chat")
    let otherFlatpak = Caller(connection: ":1.8", userID: 1000, sandbox: "flatpak:org.example.Evil")

    func testOwnershipFollowsTheConnectionOrTheUserAndSandboxNeverTheClaimedName() {
        var table = NotificationTable()
        table.track(7, appKey: "notify-send", holder: alice)
        XCTAssertNotNil(table.owned(7, by: alice), "same connection")
        XCTAssertNotNil(table.owned(7, by: aliceScript), "same user, unsandboxed: a later notify-send -r or gdbus call")
        XCTAssertNil(table.owned(7, by: bob), "another user never")
        XCTAssertNil(table.owned(7, by: flatpak), "a sandboxed app acts only on its own")
        XCTAssertNil(table.owned(8, by: alice), "unknown ID")
        XCTAssertNil(table.owned(0, by: alice), "0 is never an ID")

        table.track(9, appKey: "chat", holder: flatpak)
        XCTAssertNotNil(table.owned(9, by: Caller(connection: ":1.20", userID: 1000, sandbox: "flatpak:org.example.Chat")),
                        "the same Flatpak app from another process")
        XCTAssertNil(table.owned(9, by: otherFlatpak), "another Flatpak app of the same user")
        XCTAssertNil(table.owned(9, by: aliceScript), "an unsandboxed process does not pass for the sandboxed app")
        XCTAssertNil(table.owned(9, by: Caller(connection: ":1.21")), "a caller whose user the bus did not tell")
    }

    func testDaemonIDsMapBothWaysAndAreForgottenWithTheDaemon() {
        var ids = DaemonIDs()
        ids.bind(1, daemonID: 1001)
        XCTAssertEqual(ids.id(forDaemonID: 1001), 1)
        ids.bind(1, daemonID: 1002) // the daemon gave a new ID on replace
        XCTAssertNil(ids.id(forDaemonID: 1001))
        XCTAssertEqual(ids.id(forDaemonID: 1002), 1)
        XCTAssertEqual(ids.daemonID(of: 1), 1002)
        ids.bind(3, daemonID: 1003)
        ids.forget(3)
        XCTAssertNil(ids.id(forDaemonID: 1003))
        XCTAssertNil(ids.daemonID(of: 3))
        XCTAssertEqual(ids.forgetAll(), [1], "only what the daemon shows")
        XCTAssertNil(ids.id(forDaemonID: 1002))
        XCTAssertEqual(ids.count, 0)
    }

    func testEveryConnectionThatSentTheIDKeepsHoldingIt() {
        var table = NotificationTable()
        table.track(3, appKey: "app", holder: alice)
        table.track(3, appKey: "app", holder: aliceScript)
        table.track(3, appKey: "app", holder: alice)
        XCTAssertEqual(table[3]?.connections, [":1.9", ":1.5"], "each once, the latest last")
        XCTAssertEqual(table.count, 1)
    }

    func testHoldersAreBoundedAndTheOnesLetGoAreReturned() {
        var table = NotificationTable()
        var released: [NotificationTable.Dropped] = []
        for n in 0..<(NotificationTable.maxHolders + 3) {
            released += table.track(4, appKey: "app", holder: Caller(connection: ":2.\(n)", userID: 1000))
        }
        XCTAssertEqual(table[4]?.holders.count, NotificationTable.maxHolders)
        XCTAssertEqual(released.flatMap(\.holders).map(\.connection), [":2.0", ":2.1", ":2.2"])
    }

    func testMemoryIsBoundedByGivingUpTheOldestWhoseHoldersAreReturned() {
        var table = NotificationTable(capacity: 100)
        var released: [NotificationTable.Dropped] = []
        for id in UInt32(1)...UInt32(1000) { released += table.track(id, appKey: "flood", holder: alice) }
        XCTAssertEqual(table.count, 100)
        XCTAssertNil(table[1])
        XCTAssertNotNil(table[1000])
        XCTAssertEqual(released.map(\.id), Array(UInt32(1)...UInt32(900)), "every ID given up is returned, once")
    }

    func testCollapsedMembersAreFoundByTheirGroup() {
        var table = NotificationTable()
        table.track(10, appKey: "flood", holder: alice, collapsedInto: 50)
        table.track(11, appKey: "flood", holder: aliceScript, collapsedInto: 50)
        table.track(12, appKey: "other", holder: alice)
        XCTAssertEqual(table.collapsed(into: 50).map(\.id), [10, 11])
        table.track(11, appKey: "flood", holder: aliceScript) // replaced by its app: shown on its own now
        XCTAssertEqual(table.collapsed(into: 50).map(\.id), [10])
    }

    func testEntriesShareTheirConnectionsAndAppKeysAndForgetThemWithTheLastOne() {
        var table = NotificationTable()
        for id in UInt32(1)...1000 { table.track(id, appKey: id % 2 == 0 ? "org.example.EvenLongerName" : "odd", holder: alice) }
        table.track(7, appKey: "odd", holders: [bob, aliceScript], actionKeys: ["1": "default"])
        XCTAssertEqual(table.sharedValues.callers, 3, "one copy of each connection, whatever the number of IDs")
        XCTAssertEqual(table.sharedValues.appKeys, 2)
        XCTAssertEqual(table[7]?.holders, [alice, bob, aliceScript])
        XCTAssertEqual(table[7]?.clientKey(for: "1"), "default")
        XCTAssertEqual(table[8]?.appKey, "org.example.EvenLongerName")
        XCTAssertEqual(table[8]?.actionKeys, [:])
        table.track(7, appKey: "renamed", holder: bob) // bob again: moves to the end
        XCTAssertEqual(table[7]?.connections, [":1.5", ":1.9", ":1.6"])
        XCTAssertEqual(table[7]?.appKey, "renamed")
        XCTAssertEqual(table[7]?.actionKeys, [:], "the newest version's action keys")
        XCTAssertEqual(table.remove(7)?.holders, [alice, aliceScript, bob])
        XCTAssertEqual(table.sharedValues.callers, 1)
        XCTAssertEqual(table.sharedValues.appKeys, 2)
        for id in UInt32(1)...1000 { table.remove(id) }
        XCTAssertEqual(table.count, 0)
        XCTAssertEqual(table.sharedValues.callers, 0, "nothing refers to a connection any more")
        XCTAssertEqual(table.sharedValues.appKeys, 0)
        table.track(1, appKey: "again", holder: bob)
        XCTAssertEqual(table[1]?.holders, [bob], "usable again after it was emptied")
    }

    func testAnInternTableCountsEachValueAndReusesItsHandles() {
        var table = InternTable<String>()
        let a = table.retain("a")
        XCTAssertEqual(table.retain("a"), a)
        let b = table.retain("b")
        XCTAssertNotEqual(a, b)
        table.retain(handle: b)
        XCTAssertEqual(table.count, 2)
        table.release(a)
        XCTAssertEqual(table[a], "a", "still counted once")
        table.release(a)
        XCTAssertEqual(table.count, 1)
        let c = table.retain("c")
        XCTAssertEqual(c, a, "a forgotten value's handle is given again")
        XCTAssertEqual(table[c], "c")
        XCTAssertEqual(table[b], "b")
        table.release(b)
        XCTAssertEqual(table[b], "b")
        table.release(b)
        table.release(c)
        XCTAssertEqual(table.count, 0)
        let d = table.retain("d")
        XCTAssertEqual(table[d], "d", "usable again after it was emptied")
    }

    func testCallersSurviveTheStoreAndDamageIsNotTrusted() {
        let callers = [alice, flatpak, Caller(connection: ":1.3")]
        XCTAssertEqual(Caller.callers(stored: Caller.stored(callers)), callers)
        XCTAssertEqual(Caller.callers(stored: "garbage\n:1.4 x -\n:1.5 12 -"), [Caller(connection: ":1.5", userID: 12)])
    }

    func testSandboxIsReadFromTheProcess() {
        XCTAssertEqual(ProcessIdentity(processID: 1, flatpakID: "org.example.App").sandbox, "flatpak:org.example.App")
        let snap = ProcessIdentity(processID: 1, flatpakInfo: nil,
                                   cgroup: "0::/user.slice/user-1000.slice/user@1000.service/app.slice/snap.firefox.firefox-3c1e.scope\n",
                                   executablePath: "/snap/firefox/123/usr/lib/firefox/firefox")
        XCTAssertEqual(snap.sandbox, "snap:firefox")
        XCTAssertNil(ProcessIdentity(processID: 1, executable: "notify-send").sandbox)
    }
}

final class NotificationTableSlotTests: XCTestCase {
    func testASlotKeepsEveryFieldIncludingTheExtremesAndIsTwelveBytes() {
        XCTAssertEqual(MemoryLayout<NotificationTable.Slot>.stride, 12)
        for group in [nil, 0, 7, UInt32.max] as [UInt32?] {
            for holder in [nil, 0, 5] as [UInt32?] {
                for appKey in [0, (1 << 31) - 1] as [UInt32] {
                    let slot = NotificationTable.Slot(appKey: appKey, holder: holder, collapsedInto: group)
                    XCTAssertEqual(slot.appKey, appKey)
                    XCTAssertEqual(slot.holder, holder)
                    XCTAssertEqual(slot.collapsedInto, group)
                }
            }
        }
    }
}
