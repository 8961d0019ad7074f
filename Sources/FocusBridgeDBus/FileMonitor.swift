import CGLib

/// Watches one file (through its folder, by inotify) and calls back when it was written,
/// replaced, created or removed — editors often save by renaming a new file over the old one.
public final class FileMonitor: GIOMonitor {
    /// Nil when the file's folder does not exist (GIO would fall back to polling, which wakes
    /// the process periodically; FocusBridge never polls). The path may name a folder: then its
    /// appearing, changing and going away are reported.
    public init?(path: String, _ changed: @escaping () -> Void) {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        var isFolder = false
        if !folder.isEmpty {
            let file = g_file_new_for_path(folder)!
            isFolder = g_file_query_file_type(file, G_FILE_QUERY_INFO_NONE, nil) == G_FILE_TYPE_DIRECTORY
            g_object_unref(UnsafeMutableRawPointer(file))
        }
        guard isFolder else { return nil }
        let file = g_file_new_for_path(path)!
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        guard let monitor = g_file_monitor_file(file, G_FILE_MONITOR_WATCH_MOVES, nil, nil) else { return nil }
        super.init(monitor) { event, _, _ in
            switch event {
            case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT, G_FILE_MONITOR_EVENT_CREATED, G_FILE_MONITOR_EVENT_DELETED,
                 G_FILE_MONITOR_EVENT_MOVED_IN, G_FILE_MONITOR_EVENT_MOVED_OUT, G_FILE_MONITOR_EVENT_RENAMED:
                changed()
            default:
                break
            }
        }
    }
}
