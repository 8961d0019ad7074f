import FuzzSupport

/// `Notify` arguments as serialised GVariant bytes of type `(susssasa{sv}i)` (untrusted data:
/// GLib validates it lazily; what is not in normal form is refused), then through the bridge.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNotify(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    Fuzz.setUp
    NotifyPipeline.run(serialised: Fuzz.bytes(data, size))
    return 0
}
