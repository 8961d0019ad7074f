import FuzzSupport

/// JSON from outside: the share folder's files, the state files and database rows read back,
/// `Explain` requests, sway's tree (`JSONPipeline`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    Fuzz.setUp
    JSONPipeline.run(bytes: Fuzz.bytes(data, size))
    return 0
}
