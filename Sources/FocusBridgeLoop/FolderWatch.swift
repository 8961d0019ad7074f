import CGLib
import FocusBridgeSystem
#if canImport(Glibc)
import Glibc
#endif

/// One inotify watch on a folder, read from the main loop (a GLib fd source): what
/// `FileMonitor` and `DirectoryMonitor` share. They choose which events count; this owns the
/// inotify descriptor and hands each event over with the name of the entry it is about (nil:
/// the folder itself) and, for a rename within the folder, the new name.
public class FolderWatch {
    struct Event {
        let mask: UInt32
        let name: String?
        /// For a rename within the folder (`IN_MOVED_FROM` and its `IN_MOVED_TO`): the new name.
        let renamedTo: String?
    }

    private let fd: Int32
    private var source = SourceID.none

    /// Nil when `folder` is not a folder (or inotify refuses: no watch left).
    init?(folder: String, mask: UInt32, _ handler: @escaping (Event) -> Void) {
        guard FileStatus.isDirectory(folder) else { return nil }
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        guard inotify_add_watch(fd, folder, mask | UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT)) >= 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
        source = MainLoop.whenReadable(fd) {
            let events = FolderWatch.read(fd)
            for event in events { handler(event) }
            return true
        }
    }

    deinit {
        MainLoop.cancel(source)
        close(fd)
    }

    /// Everything the descriptor holds now; a `IN_MOVED_FROM` whose `IN_MOVED_TO` follows in the
    /// same read becomes one rename (as GIO's `G_FILE_MONITOR_WATCH_MOVES` reports it).
    private static func read(_ fd: Int32) -> [Event] {
        var raw: [(mask: UInt32, cookie: UInt32, name: String?)] = []
        let size = 16 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = Glibc.read(fd, buffer, size)
            if count <= 0 { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let header = buffer.advanced(by: offset).loadUnaligned(as: inotify_event.self)
                let nameStart = offset + MemoryLayout<inotify_event>.size
                var name: String?
                if header.len > 0 {
                    let bytes = UnsafeRawBufferPointer(start: buffer.advanced(by: nameStart), count: Int(header.len))
                    let text = bytes.prefix { $0 != 0 }
                    name = String(decoding: text, as: UTF8.self)
                }
                raw.append((header.mask, header.cookie, name))
                offset = nameStart + Int(header.len)
            }
        }
        var events: [Event] = []
        var index = 0
        while index < raw.count {
            let event = raw[index]
            if event.mask & UInt32(IN_MOVED_FROM) != 0, index + 1 < raw.count,
               raw[index + 1].mask & UInt32(IN_MOVED_TO) != 0, raw[index + 1].cookie == event.cookie {
                events.append(Event(mask: event.mask, name: event.name, renamedTo: raw[index + 1].name))
                index += 2
                continue
            }
            events.append(Event(mask: event.mask, name: event.name, renamedTo: nil))
            index += 1
        }
        return events
    }
}
