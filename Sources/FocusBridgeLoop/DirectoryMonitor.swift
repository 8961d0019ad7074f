import CGLib
#if canImport(Glibc)
import Glibc
#endif

/// Watches a folder's entries (by inotify): calls back with the name of the entry that was
/// written, created, removed, renamed or moved in or out, or with nil when the folder itself
/// changed (its permissions, or it went away).
public final class DirectoryMonitor: FolderWatch {
    /// Nil when `path` is not a folder (FocusBridge never polls for a missing one).
    public init?(path: String, _ changed: @escaping (String?) -> Void) {
        let mask = UInt32(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB)
        super.init(folder: path, mask: mask) { event in
            // Renamed within the folder: what matters is the new name (a temporary file renamed
            // over a device's file).
            changed(event.renamedTo ?? event.name)
        }
    }
}
