import CGLib
import FocusBridgeDBus
import FocusBridgeTestSupport
import XCTest

/// The fuzz finding about reading GVariants (Fuzz/README.md, "Findings"; the reproducers are
/// Fuzz/crashes/notify-text/crash-handle-hint*). It aborted the process, so it runs in a child
/// process (`expectNormalExit`), which must finish normally.
final class VariantFuzzRegressionTests: XCTestCase {
    /// Finding 2: a hint of type `h` (a Unix fd handle, which a client may put in a `v`) makes
    /// `Variant.integer` call `g_variant_get_int32` on it: `GLib-CRITICAL: g_variant_get_int32:
    /// assertion 'g_variant_is_of_type (value, G_VARIANT_TYPE_INT32)' failed` on every such
    /// notification (fatal under G_DEBUG=fatal-criticals), and the value read is 0.
    func testHandleHintIsReadWithoutAGLibCritical() throws {
        try expectNormalExit {
            // A GLib critical or warning aborts, as FocusBridge misused GLib.
            _ = g_log_set_always_fatal(GLogLevelFlags(rawValue: G_LOG_LEVEL_ERROR.rawValue | G_LOG_LEVEL_CRITICAL.rawValue
                                                        | G_LOG_LEVEL_WARNING.rawValue))
            let handle = Variant.parse("handle 3")!
            _ = handle.integer
        }
    }
}
