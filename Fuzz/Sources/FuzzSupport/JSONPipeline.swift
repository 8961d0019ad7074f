import FocusBridgeControl
import FocusBridgeCore
import FocusBridgeJSON
import FocusBridgeServer

/// Every reader of JSON that takes it from outside the process, each given the same bytes: another
/// device's file in the share folder, the state files and the state database read back, an
/// `Explain` request (any local client may call it), sway's window tree. None may crash; what
/// FocusBridge writes it must read back the same.
public enum JSONPipeline {
    public static func run(bytes: [UInt8]) {
        // The parser: a value it accepts, written again (both key orders), reads back equal.
        if let value = try? JSONParser.parse(bytes) {
            for sorted in [false, true] {
                let written = JSONWriter.write(value, sortedKeys: sorted)
                let again = try? JSONParser.parse(written)
                if sorted {
                    Fuzz.require(again.map { JSONWriter.write($0, sortedKeys: true) } == written,
                                 "JSON written with sorted keys reads back different: \(written.prefix(200))")
                } else {
                    Fuzz.require(again == value, "JSON written from a parsed value reads back different: \(written.prefix(200))")
                }
            }
        }

        // Another device's file (ShareFolder): what is accepted is written back in a form that
        // reads back and writes the same (times are kept to the millisecond, so the second round).
        if case .success(let record) = SharedFocus.decode(bytes, device: "fuzz") {
            let written = SharedFocus.encode(record)
            guard case .success(let reread) = SharedFocus.decode(written, device: "fuzz") else {
                return Fuzz.require(false, "a share-folder record FocusBridge wrote is refused: \(String(decoding: written, as: UTF8.self))")
            }
            Fuzz.require(SharedFocus.encode(reread) == written, "a share-folder record changes each time it is written")
        }

        _ = SwayTree.state(bytes)

        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        // A history row's kept request (explain ID, show ID), read back from the database.
        if let kept = KeptRequest.read(text) {
            _ = kept.app(key: "fuzz")
            _ = kept.hint("urgency")
            _ = kept.notification(summary: "summary", body: "body")
            let stored = kept.stored
            Fuzz.require(KeptRequest.read(stored)?.stored == stored, "a kept request FocusBridge stored does not read back the same")
        }
        _ = try? JSONText.decode(ExplainRequest.self, from: text)
        if let ledger = try? JSONText.decode(ShareLedger.self, from: text) { _ = ledger.isPlausible }
        if let manual = try? JSONText.decode(ManualFocus.self, from: text) { _ = manual.isPlausible }
    }
}
