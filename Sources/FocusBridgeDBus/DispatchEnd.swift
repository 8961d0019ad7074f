import FocusBridgeLoop

/// Work that waits for the end of the bus dispatch under way: it runs once every message read so
/// far has been handled, before the main loop polls again.
///
/// A batch of work made by the messages of one read (the group commit of the `Notify` calls that
/// arrived together) is done in the same pass as the messages. An idle source would cost another
/// pass of the loop — a `poll` and GLib's bookkeeping — on every call's way to its reply.
/// Outside a dispatch (a timer, a signal) the work runs when the loop is idle.
public enum DispatchEnd {
    /// How many bus dispatches are under way (more than one only in a nested loop).
    nonisolated(unsafe) private static var depth = 0
    nonisolated(unsafe) private static var waiting: [Work] = []

    /// A closure as the array holds it: an array of bare closures stores each behind a thunk
    /// (an allocation per `schedule`); a struct keeps the closure as it is.
    private struct Work {
        let run: () -> Void
    }

    /// Runs `work` at the end of the bus dispatch under way, or when the loop is idle if none is.
    public static func schedule(_ work: @escaping () -> Void) {
        if depth > 0 {
            waiting.append(Work(run: work))
        } else {
            MainLoop.whenIdle(work)
        }
    }

    /// Runs `dispatch`, then the work it scheduled (and any work that work schedules).
    static func around(_ dispatch: () -> Int32) -> Int32 {
        depth += 1
        defer { depth -= 1 }
        let result = dispatch()
        var next = 0
        while next < waiting.count {
            let work = waiting[next]
            next += 1
            work.run()
        }
        waiting.removeAll(keepingCapacity: true)
        return result
    }
}
