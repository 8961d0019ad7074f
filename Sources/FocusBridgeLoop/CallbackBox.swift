/// Carries a Swift closure through a C `gpointer` (user data) and back.
///
/// GLib calls every callback of FocusBridge on the thread running the main loop, so the boxed
/// closures are only ever called there. Public and inlinable: the bus's callbacks
/// (FocusBridgeDBus) use it on every message, where a call into the unspecialised generic
/// functions would cost more than the box (a `package` body is not inlined across modules).
public final class CallbackBox<Value>: @unchecked Sendable {
    public let value: Value
    @inlinable public init(_ value: Value) { self.value = value }

    /// A retained pointer to hand to C; balance it with `release(_:)` or `take(_:)`.
    @inlinable public func retainedPointer() -> UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    @inlinable public static func borrow(_ pointer: UnsafeRawPointer?) -> Value {
        Unmanaged<CallbackBox<Value>>.fromOpaque(pointer!).takeUnretainedValue().value
    }

    /// Takes the value out and drops the reference (for one-shot callbacks).
    @inlinable public static func take(_ pointer: UnsafeRawPointer?) -> Value {
        Unmanaged<CallbackBox<Value>>.fromOpaque(pointer!).takeRetainedValue().value
    }

    @inlinable public static func release(_ pointer: UnsafeRawPointer?) {
        Unmanaged<CallbackBox<Value>>.fromOpaque(pointer!).release()
    }
}
