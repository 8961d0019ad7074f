/// Path text, worked on as NSString's path methods work on it (the same answers, so log lines
/// and watched paths are the same with or without Foundation): runs of `/` are one, a trailing `/` is dropped.
public enum FilePath {
    /// `folder/name`; either alone when the other is empty.
    public static func appending(_ folder: String, _ name: String) -> String {
        if name.isEmpty { return folder }
        if folder.isEmpty { return name }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The path without its last component: "" for a single relative one, "/" for one at the root.
    public static func parent(_ path: String) -> String {
        let fixed = fixingSlashes(path)
        if fixed == "/" || fixed.isEmpty { return fixed }
        guard let slash = fixed.lastIndex(of: "/") else { return "" }
        if slash == fixed.startIndex { return "/" }
        return String(fixed[..<slash])
    }

    /// The last component ("/" for the root).
    public static func lastComponent(_ path: String) -> String {
        let fixed = fixingSlashes(path)
        guard fixed.count > 1, let slash = fixed.lastIndex(of: "/") else { return fixed }
        return String(fixed[fixed.index(after: slash)...])
    }

    /// `~` and `~user` expanded, `.` dropped, `..` taken back (in an absolute path), and each
    /// component that is a symbolic link to an absolute path that exists replaced by that
    /// path's real path, as `NSString.standardizingPath` does on Linux (swift-corelibs-foundation
    /// 6.x: a link to a relative path stays as it is there, unless that path happens to exist
    /// from the current folder; here it always stays). Not copied: its dropping of a leading
    /// `/private` or `/var/automount` when the rest exists, macOS's firmlinks. `home` is the
    /// folder `~` stands for.
    public static func standardized(_ path: String, home: String = Environment.homeDirectory) -> String {
        let expanded = expandingTilde(path, home: home)
        let isAbsolute = expanded.hasPrefix("/")
        var components = expanded.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !expanded.isEmpty else { return expanded }
        var resolved: String
        if isAbsolute {
            resolved = "/"
        } else if components.isEmpty {
            return expanded
        } else {
            resolved = components.removeFirst()
        }
        for component in components {
            switch component {
            case ".":
                continue
            case ".." where isAbsolute:
                resolved = parent(resolved)
            default:
                resolved = appending(resolved, component)
                if let destination = try? FileStatus.symbolicLinkDestination(resolved), destination.hasPrefix("/"),
                   let real = FileStatus.realPath(destination) {
                    resolved = real
                }
            }
        }
        return resolved
    }

    /// `~/x` → `home/x`, `~user/x` → that user's home folder; unchanged when there is none.
    static func expandingTilde(_ path: String, home: String) -> String {
        guard path.hasPrefix("~") else { return path }
        let end = path.firstIndex(of: "/") ?? path.endIndex
        let user = String(path[path.index(after: path.startIndex)..<end])
        guard let folder = user.isEmpty ? home : Environment.homeDirectory(ofUser: user) else {
            return stripTrailingSlash(path)
        }
        return stripTrailingSlash(folder + path[end...])
    }

    /// Runs of `/` made one, and a trailing `/` dropped (not the root's).
    static func fixingSlashes(_ path: String) -> String {
        guard path != "/" else { return path }
        var result = ""
        result.reserveCapacity(path.utf8.count)
        var previousSlash = false
        for character in path {
            if character == "/" {
                if previousSlash { continue }
                previousSlash = true
            } else {
                previousSlash = false
            }
            result.append(character)
        }
        return stripTrailingSlash(result)
    }

    static func stripTrailingSlash(_ path: String) -> String {
        path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }
}
