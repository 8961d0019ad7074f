import CGLib

/// The GLib main loop on the default context, with typed timers, idle work and Unix signals.
///
/// All of FocusBridge's state lives on the thread that runs this loop; other threads reach it with
/// `MainLoop.invoke`.
public enum MainLoop {
    nonisolated(unsafe) private static var loop: OpaquePointer? = nil

    /// Runs until `quit()`.
    public static func run() {
        let loop = g_main_loop_new(nil, 0)
        Self.loop = loop
        g_main_loop_run(loop)
        g_main_loop_unref(loop)
        Self.loop = nil
    }

    public static func quit() {
        if let loop { g_main_loop_quit(loop) }
    }

    /// Runs one iteration of the default context (blocking when `blocking`); for synchronous tools.
    @discardableResult
    public static func iterate(blocking: Bool) -> Bool {
        g_main_context_iteration(nil, blocking ? 1 : 0) != 0
    }

    /// A one-shot timer after `milliseconds`; returns its source ID for `cancel`.
    @discardableResult
    public static func after(milliseconds: UInt32, _ work: @escaping () -> Void) -> SourceID {
        let box = CallbackBox(work)
        return SourceID(g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { data in
            CallbackBox<() -> Void>.borrow(data)()
            return 0 // G_SOURCE_REMOVE
        }, box.retainedPointer(), { data in CallbackBox<() -> Void>.release(data) }))
    }

    /// Work to do once the loop has nothing more urgent (batches many events into one pass).
    @discardableResult
    public static func whenIdle(_ work: @escaping () -> Void) -> SourceID {
        let box = CallbackBox(work)
        return SourceID(g_idle_add_full(G_PRIORITY_DEFAULT_IDLE, { data in
            CallbackBox<() -> Void>.borrow(data)()
            return 0
        }, box.retainedPointer(), { data in CallbackBox<() -> Void>.release(data) }))
    }

    public static func cancel(_ source: SourceID) {
        if source != .none { g_source_remove(source.rawValue) }
    }

    /// Calls `handler` on the loop each time the process receives `signal` (SIGTERM, SIGINT, SIGHUP).
    @discardableResult
    public static func onSignal(_ signal: Int32, _ handler: @escaping () -> Void) -> SourceID {
        let box = CallbackBox(handler)
        return SourceID(g_unix_signal_add_full(G_PRIORITY_DEFAULT, signal, { data in
            CallbackBox<() -> Void>.borrow(data)()
            return 1 // G_SOURCE_CONTINUE
        }, box.retainedPointer(), { data in CallbackBox<() -> Void>.release(data) }))
    }

    /// Calls `handler` on the loop each time `fd` is readable or hung up (the window watchers'
    /// sockets); the watch ends when `handler` returns false.
    @discardableResult
    public static func whenReadable(_ fd: Int32, _ handler: @escaping () -> Bool) -> SourceID {
        let box = CallbackBox(handler)
        let condition = GIOCondition(rawValue: G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
        return SourceID(g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, condition, { _, _, data in
            CallbackBox<() -> Bool>.borrow(data)() ? 1 : 0
        }, box.retainedPointer(), { data in CallbackBox<() -> Bool>.release(data) }))
    }

    /// Runs `work` on the loop's thread (from any thread).
    public static func invoke(_ work: @escaping @Sendable () -> Void) {
        let box = CallbackBox(work)
        g_main_context_invoke_full(nil, G_PRIORITY_DEFAULT, { data in
            CallbackBox<@Sendable () -> Void>.borrow(data)()
            return 0
        }, box.retainedPointer(), { data in CallbackBox<@Sendable () -> Void>.release(data) })
    }
}

/// A GLib event source on the main loop (a timer, an idle callback), for `MainLoop.cancel`.
public struct SourceID: Hashable, Sendable {
    public let rawValue: UInt32
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    /// No source (GLib never hands out 0).
    public static let none = SourceID(0)
}
