import CGLib

/// Watches a folder's entries (by inotify, through GIO): calls back with the name of the entry
/// that was written, created, removed, renamed or moved in or out, or with nil when the folder
/// itself changed (its permissions, or it went away).
public final class DirectoryMonitor: GIOMonitor {
    /// Nil when `path` is not a folder (GIO would poll for a missing one; FocusBridge never polls).
    public init?(path: String, _ changed: @escaping (String?) -> Void) {
        let file = g_file_new_for_path(path)!
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        guard g_file_query_file_type(file, G_FILE_QUERY_INFO_NONE, nil) == G_FILE_TYPE_DIRECTORY,
              let monitor = g_file_monitor_directory(file, G_FILE_MONITOR_WATCH_MOVES, nil, nil) else { return nil }
        super.init(monitor) { event, child, other in
            switch event {
            case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT, G_FILE_MONITOR_EVENT_CREATED, G_FILE_MONITOR_EVENT_DELETED,
                 G_FILE_MONITOR_EVENT_MOVED_IN, G_FILE_MONITOR_EVENT_MOVED_OUT, G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED,
                 G_FILE_MONITOR_EVENT_UNMOUNTED:
                changed(child)
            case G_FILE_MONITOR_EVENT_RENAMED:
                // Renamed within the folder: what matters is the new name (a temporary file
                // renamed over a device's file).
                changed(other ?? child)
            default:
                break
            }
        }
    }
}
