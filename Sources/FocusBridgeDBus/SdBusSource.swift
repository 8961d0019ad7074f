import CGLib
import CSystemd
import FocusBridgeLoop

/// An sd-bus connection as an event source of the GLib main loop: no worker thread and no
/// polling timer. Before each poll it asks sd-bus which events it waits for and when its next
/// time-out (a call's reply deadline) falls (`sd_bus_get_events`, `sd_bus_get_timeout`, which
/// is "now" while messages already read wait in its queue); when the socket is ready or the
/// deadline passed it runs `sd_bus_process` until there is nothing left to do, then the work those
/// messages left for the end of the dispatch (`DispatchEnd`). Every callback of the connection
/// therefore runs on the loop's thread, like GLib's own.
///
/// The source may recurse as far as GLib is concerned: GLib takes a non-recursive source's
/// descriptor out of the poll set while it dispatches and puts it back after, and putting it back
/// wakes the context (a write to its eventfd, so the next `poll` returns at once and the loop
/// turns once more for nothing: four writes, a read and a poll per `Notify`). A nested loop during
/// the dispatch (a subprocess awaited at shut-down) finds it busy instead: not ready, polling for
/// nothing, until the dispatch returns (sd-bus itself refuses to process recursively).
final class SdBusSource {
    private let source: UnsafeMutablePointer<GSource>
    private let tag: gpointer

    /// `closed` runs once when the connection ends (the bus went away, or it broke).
    init(bus: OpaquePointer, closed: @escaping () -> Void) {
        source = g_source_new(SdBusSource.functions, guint(MemoryLayout<SdBusSourceState>.stride))
        let state = UnsafeMutableRawPointer(source).assumingMemoryBound(to: SdBusSourceState.self)
        state.pointee.bus = bus
        state.pointee.closed = CallbackBox(closed).retainedPointer()
        tag = g_source_add_unix_fd(source, sd_bus_get_fd(bus), G_IO_IN)
        state.pointee.tag = tag
        state.pointee.condition = G_IO_IN.rawValue
        state.pointee.dispatching = false
        g_source_set_can_recurse(source, 1)
        g_source_attach(source, nil)
    }

    /// Detaches it (the connection is being freed).
    func destroy() {
        g_source_destroy(source)
        g_source_unref(source)
    }

    /// GLib's table of the source's functions, for every sd-bus source (GLib keeps the pointer).
    nonisolated(unsafe) private static let functions: UnsafeMutablePointer<GSourceFuncs> = {
        let table = UnsafeMutablePointer<GSourceFuncs>.allocate(capacity: 1)
        table.initialize(to: GSourceFuncs(prepare: { source, timeout in
            let state = SdBusSourceState.of(source!)
            let bus = state.pointee.bus!
            if state.pointee.dispatching {
                if state.pointee.condition != 0 {
                    state.pointee.condition = 0
                    g_source_modify_unix_fd(source, state.pointee.tag, GIOCondition(rawValue: 0))
                }
                timeout?.pointee = -1
                return 0
            }
            let events = sd_bus_get_events(bus)
            guard events >= 0 else { timeout?.pointee = 0; return 1 } // closed: dispatch says so
            var condition = G_IO_HUP.rawValue | G_IO_ERR.rawValue
            if events & Int32(POLLIN) != 0 { condition |= G_IO_IN.rawValue }
            if events & Int32(POLLOUT) != 0 { condition |= G_IO_OUT.rawValue }
            // Only a change: modifying the poll set wakes the context up, which would spin the loop.
            if condition != state.pointee.condition {
                state.pointee.condition = condition
                g_source_modify_unix_fd(source, state.pointee.tag, GIOCondition(rawValue: condition))
            }
            var deadline: UInt64 = 0
            guard sd_bus_get_timeout(bus, &deadline) > 0, deadline != UInt64.max else {
                timeout?.pointee = -1
                return 0
            }
            let now = UInt64(max(0, g_source_get_time(source)))
            if deadline <= now { timeout?.pointee = 0; return 1 }
            timeout?.pointee = gint(min(UInt64(Int32.max), (deadline - now + 999) / 1000))
            return 0
        }, check: { source in
            let state = SdBusSourceState.of(source!)
            if state.pointee.dispatching { return 0 }
            if g_source_query_unix_fd(source, state.pointee.tag).rawValue != 0 { return 1 }
            var deadline: UInt64 = 0
            guard sd_bus_get_timeout(state.pointee.bus!, &deadline) > 0, deadline != UInt64.max else { return 0 }
            return deadline <= UInt64(max(0, g_source_get_time(source))) ? 1 : 0
        }, dispatch: { source, _, _ in
            let state = SdBusSourceState.of(source!)
            let bus = state.pointee.bus!
            if state.pointee.dispatching { return 1 }
            state.pointee.dispatching = true
            let result = DispatchEnd.around {
                var result: Int32
                repeat { result = sd_bus_process(bus, nil) } while result > 0
                return result
            }
            state.pointee.dispatching = false
            if result < 0 || sd_bus_is_open(bus) <= 0 {
                if let closed = state.pointee.closed {
                    state.pointee.closed = nil
                    CallbackBox<() -> Void>.take(closed)()
                }
                return 0 // G_SOURCE_REMOVE
            }
            return 1
        }, finalize: { source in
            let state = SdBusSourceState.of(source!)
            if let closed = state.pointee.closed { CallbackBox<() -> Void>.release(closed) }
            state.pointee.closed = nil
        }, closure_callback: nil, closure_marshal: nil))
        return table
    }()
}

/// The `GSource` followed by what the source's functions need (GLib allocates the whole).
private struct SdBusSourceState {
    var base: GSource
    var bus: OpaquePointer?
    var tag: gpointer?
    /// The events the descriptor is polled for now (`GIOCondition` bits).
    var condition: UInt32
    /// Its dispatch is under way (a nested loop must not enter it again).
    var dispatching: Bool
    var closed: UnsafeMutableRawPointer?

    static func of(_ source: UnsafeMutablePointer<GSource>) -> UnsafeMutablePointer<SdBusSourceState> {
        UnsafeMutableRawPointer(source).assumingMemoryBound(to: SdBusSourceState.self)
    }
}
