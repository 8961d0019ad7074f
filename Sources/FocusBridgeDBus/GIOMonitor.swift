import CGLib

/// A GIO file monitor with its `changed` signal connected: what `FileMonitor` and
/// `DirectoryMonitor` share. They choose what to watch and which events count; this owns the
/// monitor and hands each event over with the names of the file it is about and, for a
/// rename, of the new one.
public class GIOMonitor {
    private let monitor: UnsafeMutablePointer<GFileMonitor>

    typealias Handler = (GFileMonitorEvent, String?, String?) -> Void

    init(_ monitor: UnsafeMutablePointer<GFileMonitor>, _ handler: @escaping Handler) {
        self.monitor = monitor
        let callback: @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, GFileMonitorEvent, UnsafeMutableRawPointer?) -> Void = { _, child, other, event, data in
            func name(_ file: OpaquePointer?) -> String? {
                guard let file, let raw = g_file_get_basename(file) else { return nil }
                defer { g_free(raw) }
                return String(cString: raw)
            }
            CallbackBox<Handler>.borrow(data)(event, name(child), name(other))
        }
        g_signal_connect_data(UnsafeMutableRawPointer(monitor), "changed", unsafeBitCast(callback, to: GCallback.self),
                              CallbackBox<Handler>(handler).retainedPointer(),
                              { data, _ in CallbackBox<Handler>.release(data) }, GConnectFlags(rawValue: 0))
    }

    deinit {
        g_file_monitor_cancel(monitor)
        g_object_unref(UnsafeMutableRawPointer(monitor))
    }
}
