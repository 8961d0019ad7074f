import FuzzSupport

/// The configuration file: its bytes, as `Configuration.load` reads them → `FocusBridgeTOML` and
/// `Configuration.parse(bytes:)`, then the settings put to use as the bridge uses them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    Fuzz.setUp
    ConfigPipeline.run(bytes: Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
