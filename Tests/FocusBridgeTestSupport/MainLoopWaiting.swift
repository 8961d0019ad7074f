import FocusBridgeLoop
#if canImport(XCTest)
import FocusBridgeDBus
import XCTest

/// Runs the GLib main loop until `done` holds, at most `seconds`: a bounded wait for a reply, a
/// signal or a file event, never a sleep. Fails the test at the caller's line when it does not
/// come to hold; true if it did.
@discardableResult
public func waitOnMainLoop(until done: () -> Bool, seconds: UInt32 = 10, _ message: @autoclosure () -> String = "timed out",
                        file: StaticString = #filePath, line: UInt = #line) -> Bool {
    var expired = false
    let timer = MainLoop.after(milliseconds: seconds * 1000) { expired = true }
    while !done() && !expired { MainLoop.iterate(blocking: true) }
    MainLoop.cancel(timer)
    if done() { return true }
    XCTFail(message(), file: file, line: line)
    return false
}
#endif
