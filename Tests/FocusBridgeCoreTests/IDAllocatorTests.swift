import FocusBridgeCore
import XCTest

final class IDAllocatorTests: XCTestCase {
    func testStartsAtOneAndReservesABlock() {
        var ids = IDAllocator(persistedHighWater: 0)
        let first = ids.allocate()
        XCTAssertEqual(first.id, 1)
        XCTAssertEqual(first.reserve, IDAllocator.blockSize)
        XCTAssertNil(ids.allocate().reserve, "inside the block nothing needs persisting")
    }

    func testARestartNeverReusesAnIDHandedOut() {
        var before = IDAllocator(persistedHighWater: 0)
        var persisted: UInt32 = 0
        var handedOut: [UInt32] = []
        for _ in 0..<1500 {
            let allocation = before.allocate()
            if let reserve = allocation.reserve { persisted = reserve }
            handedOut.append(allocation.id)
        }
        var after = IDAllocator(persistedHighWater: persisted)
        XCTAssertGreaterThan(after.allocate().id, handedOut.max()!)
        XCTAssertEqual(Set(handedOut).count, handedOut.count)
    }

    func testNeverHandsOutZeroWhenWrapping() {
        var ids = IDAllocator(persistedHighWater: UInt32.max - 1)
        XCTAssertEqual(ids.allocate().id, UInt32.max)
        XCTAssertNotEqual(ids.allocate().id, 0)
    }
}
