import FocusBridgeConfig
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop
@testable import FocusBridgeServer
import FocusBridgeStore
import FocusBridgeTime
import Foundation
import Logging
import XCTest

/// A `Downstream` without a bus: it records what the bridge sends and lets the test answer each
/// `Notify` as the daemon would, when it chooses.
final class FakeDownstream: Downstream {
    struct NotifyCall {
        let notification: ForwardedNotification
        let replacing: UInt32
        let completion: (Result<UInt32, DBusError>) -> Void
    }

    let mode = DownstreamSettings.Mode.name
    let target = "a fake daemon"
    var isConnected = true
    var capabilities: [String]? = ["body", "actions"]
    var serverInformation: ServerInformation? = nil
    weak var events: DownstreamEvents?
    var passthrough: Passthrough? { nil }

    /// Every `Notify` sent, in order; `answered` counts those the test completed.
    private(set) var calls: [NotifyCall] = []
    private(set) var answered = 0
    private(set) var closed: [(daemonID: UInt32, bridgeID: UInt32)] = []

    var unanswered: Int { calls.count - answered }

    func start() {}
    func stop() {}

    func notify(_ notification: ForwardedNotification, replacing daemonID: UInt32,
                completion: @escaping (Result<UInt32, DBusError>) -> Void) {
        calls.append(NotifyCall(notification: notification, replacing: daemonID, completion: completion))
    }

    func close(daemonID: UInt32, bridgeID: UInt32) { closed.append((daemonID, bridgeID)) }

    /// Completes the oldest call not answered yet, as the daemon would.
    func answerNext(_ result: Result<UInt32, DBusError>, file: StaticString = #filePath, line: UInt = #line) {
        guard answered < calls.count else { return XCTFail("no Notify call waits for an answer", file: file, line: line) }
        let call = calls[answered]
        answered += 1
        call.completion(result)
    }
}

/// Log lines, kept for the test to read.
final class LogRecorder: @unchecked Sendable {
    private(set) var lines: [(level: Logger.Level, message: String)] = []

    var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.lines.append((event.level, event.message.description))
        }
    }
}

/// A notification as the bridge forwards it (what is inside does not matter to the forwarder).
func forwarded(_ id: UInt32, summary: String = "Hello") -> ForwardedNotification {
    ForwardedNotification(id: id, appKey: "Mail", level: .active, request: NotificationRequest(appName: "Mail", summary: summary),
                          summary: summary, body: "", actions: [],
                          hints: ForwardedHints(original: .variant(.dictionary([])), keeping: nil, added: nil),
                          weight: 40 + summary.utf8.count)
}

/// A history row for notification `id`.
func historyEntry(_ id: UInt32, summary: String = "Hello", decision: DeliveryOutcome = .delivered) -> HistoryEntry {
    HistoryEntry(id: id, app: "Mail", summary: summary, body: "", level: .active, decision: decision,
                 received: Instant(timeIntervalSince1970: 1_800_000_000 + Double(id)))
}

extension XCTestCase {
    /// A folder of its own for a state database, removed after the test.
    func temporaryStoreFolder() -> String {
        let directory = NSTemporaryDirectory() + "focus-bridge-server-tests-\(UUID().uuidString)"
        addTeardownBlock { try? FileManager.default.removeItem(atPath: directory) }
        return directory
    }

    /// A state database in a folder of its own, removed after the test.
    func temporaryStore() throws -> Store {
        try Store(directory: temporaryStoreFolder())
    }

    /// Runs the GLib main loop's ready work (idle callbacks) until `done`; fails if the loop has
    /// nothing more to run first.
    func runMainLoop(until done: () -> Bool, file: StaticString = #filePath, line: UInt = #line) {
        while !done() {
            guard MainLoop.iterate(blocking: false) else {
                return XCTFail("the main loop has nothing left to run, and the condition is still false", file: file, line: line)
            }
        }
    }
}
