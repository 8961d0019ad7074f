import CGLib
#if canImport(Glibc)
import Glibc
#endif

/// Watches one file (through its folder, by inotify) and calls back when it was written,
/// replaced, created or removed — editors often save by renaming a new file over the old one.
public final class FileMonitor: FolderWatch {
    /// Nil when the file's folder does not exist (FocusBridge never polls for it). The path may
    /// name a folder: then its appearing, changing and going away are reported.
    public init?(path: String, _ changed: @escaping () -> Void) {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        guard !folder.isEmpty else { return nil }
        let name = String(path[path.index(after: path.lastIndex(of: "/")!)...])
        let mask = UInt32(IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
        super.init(folder: folder, mask: mask) { event in
            // The file's own events, and the folder's going away (the file went with it).
            if event.name == nil || event.name == name || event.renamedTo == name { changed() }
        }
    }
}
