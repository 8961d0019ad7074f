import FuzzSupport

/// `Notify` arguments in GVariant text format (`('app', uint32 0, '', 'Hi', '', @as [], {'urgency':
/// <byte 2>}, -1)`), parsed with `g_variant_parse`: mutations stay well-typed far more often than
/// with the serialised form, so hints, actions and image-data of every shape reach the bridge.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNotifyText(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    Fuzz.setUp
    guard let text = Fuzz.text(data, size) else { return 0 }
    NotifyPipeline.run(text: text)
    return 0
}
