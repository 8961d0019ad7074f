import FocusBridgeDBus
import FocusBridgeLoop
import FocusBridgeSystem

/// Watches the configuration file for changes — also before it exists, and before its folder
/// does (the first `config.toml` of a new user is written after the bridge started).
///
/// inotify watches folders, so while the folder is missing the nearest existing ancestor is
/// watched for the next missing folder to appear; then the watch moves down, until it sits on
/// the file itself.
final class ConfigWatch {
    private let path: String
    private let changed: () -> Void
    private var monitor: FileMonitor?

    init(path: String, _ changed: @escaping () -> Void) {
        self.path = FilePath.standardized(path)
        self.changed = changed
        arm()
    }

    private func arm() {
        let missing = firstMissingFolder()
        if let missing {
            // Watch for that folder to appear, then move the watch down.
            monitor = FileMonitor(path: missing) { [weak self] in self?.folderAppeared() }
        } else {
            monitor = FileMonitor(path: path, changed)
        }
    }

    private func folderAppeared() {
        arm()
        if FileStatus.exists(path) { changed() }
    }

    /// The shallowest folder on the way to the file that does not exist, or nil when the file's
    /// folder exists.
    private func firstMissingFolder() -> String? {
        var folders: [String] = []
        var folder = FilePath.parent(path)
        while !folder.isEmpty && folder != "/" {
            folders.append(folder)
            folder = FilePath.parent(folder)
        }
        return folders.reversed().first { !FileStatus.isDirectory($0) }
    }
}
