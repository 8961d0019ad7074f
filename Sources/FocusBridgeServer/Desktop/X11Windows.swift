import CXCB
import FocusBridgeCore
import FocusBridgeDBus
import FocusBridgeLoop

/// The window in front on X11, from the window manager's EWMH properties: `_NET_ACTIVE_WINDOW`
/// on the root window, and on that window `WM_CLASS`, `_GTK_APPLICATION_ID`, `_NET_WM_PID` and
/// `_NET_WM_STATE` (fullscreen). Property-change events on both, read from libxcb's socket on
/// the main loop; the only file that calls libxcb, which it opens at `start` (`focus_xcb_load`:
/// a session without X11 never loads it).
final class X11Windows {
    private let display: String
    private let update: (WindowState) -> Void
    private let lost: (String) -> Void
    private var xcb: focus_xcb?
    private var connection: OpaquePointer?
    private var root: xcb_window_t = 0
    private var active: xcb_window_t = 0
    private var atoms: [String: xcb_atom_t] = [:]
    private var watch: SourceID = .none

    init(display: String, update: @escaping (WindowState) -> Void, lost: @escaping (String) -> Void) {
        self.display = display
        self.update = update
        self.lost = lost
    }

    deinit { shut() }

    /// Connects, watches the root window and reads the state once; the reason when it cannot.
    func start() -> String? {
        guard let xcb = focus_xcb_load()?.pointee else { return "cannot open libxcb.so.1 (libxcb1)" }
        self.xcb = xcb
        var screenNumber: Int32 = 0
        guard let connection = xcb.connect(display, &screenNumber), xcb.connection_has_error(connection) == 0 else {
            return "cannot connect to the X display \(display)"
        }
        self.connection = connection
        var screens = xcb.setup_roots_iterator(xcb.get_setup(connection))
        for _ in 0..<max(screenNumber, 0) where screens.rem > 0 { xcb.screen_next(&screens) }
        guard let screen = screens.data else { return "the X display \(display) has no screen" }
        root = screen.pointee.root
        for name in ["_NET_ACTIVE_WINDOW", "_NET_WM_STATE", "_NET_WM_STATE_FULLSCREEN", "_GTK_APPLICATION_ID", "_NET_WM_PID",
                     "UTF8_STRING"] {
            let cookie = xcb.intern_atom(connection, 0, UInt16(name.utf8.count), name)
            if let reply = xcb.intern_atom_reply(connection, cookie, nil) {
                atoms[name] = reply.pointee.atom
                free(reply)
            }
        }
        listen(to: root)
        watch = MainLoop.whenReadable(xcb.get_file_descriptor(connection)) { [weak self] in
            guard let self else { return false }
            return self.readEvents()
        }
        refresh()
        return nil
    }

    private func listen(to window: xcb_window_t) {
        guard let xcb, let connection else { return }
        var mask = XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue
        _ = xcb.change_window_attributes(connection, window, XCB_CW_EVENT_MASK.rawValue, &mask)
        _ = xcb.flush(connection)
    }

    private func readEvents() -> Bool {
        guard let xcb, let connection else { return false }
        var changed = false
        while let event = xcb.poll_for_event(connection) {
            if event.pointee.response_type & 0x7f == XCB_PROPERTY_NOTIFY {
                let notify = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee
                if notify.window == root && notify.atom == atoms["_NET_ACTIVE_WINDOW"] { changed = true }
                if notify.window == active && notify.window != root { changed = true }
            }
            free(event)
        }
        if xcb.connection_has_error(connection) != 0 {
            watch = .none
            shut()
            lost("the X display \(display) closed the connection")
            return false
        }
        if changed { refresh() }
        return true
    }

    /// Reads the active window and its properties, and says what is in front.
    private func refresh() {
        let window = property(root, "_NET_ACTIVE_WINDOW", type: XCB_ATOM_WINDOW.rawValue).flatMap { bytes -> xcb_window_t? in
            bytes.count >= 4 ? bytes.withUnsafeBytes { $0.loadUnaligned(as: xcb_window_t.self) } : nil
        } ?? 0
        if window != active {
            active = window
            if window != 0 { listen(to: window) }
        }
        guard window != 0 else { return update(WindowState()) }
        var names: [String] = []
        if let gtk = property(window, "_GTK_APPLICATION_ID", type: atoms["UTF8_STRING"] ?? 0) {
            names.append(String(decoding: gtk.prefix { $0 != 0 }, as: UTF8.self))
        }
        if let wmClass = property(window, nil, atom: XCB_ATOM_WM_CLASS.rawValue, type: XCB_ATOM_STRING.rawValue) {
            // instance NUL class NUL
            names += wmClass.split(separator: 0).prefix(2).map { String(decoding: $0, as: UTF8.self) }
        }
        let pid = property(window, "_NET_WM_PID", type: XCB_ATOM_CARDINAL.rawValue).flatMap { bytes -> UInt32? in
            bytes.count >= 4 ? bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } : nil
        }
        let states = property(window, "_NET_WM_STATE", type: XCB_ATOM_ATOM.rawValue).map { bytes in
            stride(from: 0, to: bytes.count - 3, by: 4).map { offset in
                bytes[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: xcb_atom_t.self) }
            }
        } ?? []
        let fullscreen = atoms["_NET_WM_STATE_FULLSCREEN"].map(states.contains) ?? false
        update(WindowState(focused: FocusedWindow(names: names, processID: pid, fullscreen: fullscreen)))
    }

    /// A property's bytes (at most 64 KiB), or nil when the window has none of that type.
    private func property(_ window: xcb_window_t, _ name: String?, atom: xcb_atom_t? = nil, type: xcb_atom_t) -> [UInt8]? {
        guard let xcb, let connection, let atom = atom ?? name.flatMap({ atoms[$0] }) else { return nil }
        let cookie = xcb.get_property(connection, 0, window, atom, type, 0, 16_384)
        guard let reply = xcb.get_property_reply(connection, cookie, nil) else { return nil }
        defer { free(reply) }
        let length = Int(xcb.get_property_value_length(reply))
        guard reply.pointee.type != 0, length > 0, let value = xcb.get_property_value(reply) else { return nil }
        return Array(UnsafeRawBufferPointer(start: value, count: length))
    }

    private func shut() {
        MainLoop.cancel(watch)
        watch = .none
        if let connection, let xcb { xcb.disconnect(connection) }
        connection = nil
    }
}
