import FuzzSupport

/// The configuration file: bytes → UTF-8 text (as `Configuration.load` does) → `Configuration.parse`,
/// then the settings put to use as the bridge uses them.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    Fuzz.setUp
    guard let text = Fuzz.text(data, size) else { return 0 }
    ConfigPipeline.run(text: text)
    return 0
}
