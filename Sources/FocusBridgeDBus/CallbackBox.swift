/// Carries a Swift closure through a C `gpointer` (user data) and back.
///
/// GLib calls every callback of FocusBridge on the thread running the main loop, so the boxed
/// closures are only ever called there.
final class CallbackBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }

    /// A retained pointer to hand to C; balance it with `release(_:)` or `take(_:)`.
    func retainedPointer() -> UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    static func borrow(_ pointer: UnsafeRawPointer?) -> Value {
        Unmanaged<CallbackBox<Value>>.fromOpaque(pointer!).takeUnretainedValue().value
    }

    /// Takes the value out and drops the reference (for one-shot callbacks).
    static func take(_ pointer: UnsafeRawPointer?) -> Value {
        Unmanaged<CallbackBox<Value>>.fromOpaque(pointer!).takeRetainedValue().value
    }

    static func release(_ pointer: UnsafeRawPointer?) {
        Unmanaged<CallbackBox<Value>>.fromOpaque(pointer!).release()
    }
}
