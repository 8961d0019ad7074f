/// Carries a Swift closure through a C `gpointer` (user data) and back.
///
/// GLib calls every callback of FocusBridge on the thread running the main loop, so the boxed
/// closures are only ever called there. Package-wide: the bus's callbacks (FocusBridgeDBus) use it
/// too.
package final class CallbackBox<Value>: @unchecked Sendable {
    package let value: Value
    package init(_ value: Value) { self.value = value }

    /// A retained pointer to hand to C; balance it with `release(_:)` or `take(_:)`.
    package func retainedPointer() -> UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    package static func borrow(_ pointer: UnsafeRawPointer?) -> Value {
        Unmanaged<CallbackBox<Value>>.fromOpaque(pointer!).takeUnretainedValue().value
    }

    /// Takes the value out and drops the reference (for one-shot callbacks).
    package static func take(_ pointer: UnsafeRawPointer?) -> Value {
        Unmanaged<CallbackBox<Value>>.fromOpaque(pointer!).takeRetainedValue().value
    }

    package static func release(_ pointer: UnsafeRawPointer?) {
        Unmanaged<CallbackBox<Value>>.fromOpaque(pointer!).release()
    }
}
