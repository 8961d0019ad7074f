import CGLib

/// A timer for a wall-clock instant, without polling: a `timerfd` on `CLOCK_REALTIME` with an
/// absolute deadline, so it fires at the right local time whatever happened in between (DST,
/// suspend), and is woken early when someone sets the clock, so schedules can be re-evaluated.
public final class WallClockTimer {
    private let descriptor: Int32
    private var source = SourceID.none
    private let fired: () -> Void

    private static let absolute: Int32 = 1          // TFD_TIMER_ABSTIME
    private static let cancelOnSet: Int32 = 2       // TFD_TIMER_CANCEL_ON_SET
    private static let flags: Int32 = 0o4000 | 0o2000000 // TFD_NONBLOCK | TFD_CLOEXEC

    /// `fired` runs on the main loop when the deadline passes or the clock is set.
    public init(_ fired: @escaping () -> Void) {
        self.fired = fired
        descriptor = timerfd_create(CLOCK_REALTIME, Self.flags)
        guard descriptor >= 0 else { return }
        typealias Handler = () -> Void
        let box = CallbackBox<Handler>({ [weak self] in self?.expired() })
        source = SourceID(g_unix_fd_add_full(G_PRIORITY_DEFAULT, descriptor, G_IO_IN, { _, _, data in
            CallbackBox<Handler>.borrow(data)()
            return 1 // G_SOURCE_CONTINUE
        }, box.retainedPointer(), { data in CallbackBox<Handler>.release(data) }))
    }

    deinit {
        MainLoop.cancel(source)
        if descriptor >= 0 { close(descriptor) }
    }

    /// Arms the timer for the instant `secondsSince1970` (replacing any earlier deadline). With nil
    /// it only watches for clock changes.
    public func schedule(atSecondsSince1970 deadline: Double?) {
        guard descriptor >= 0 else { return }
        // Far in the future when there is no deadline: still armed, so a clock change is seen.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let when = deadline ?? Double(now.tv_sec) + 365 * 86_400
        // Total for any deadline: one past year 9999 (or not finite) is armed at year 9999.
        let seconds = when.isNaN ? 1 : min(max(when, 1), 253_402_300_799)
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(seconds.rounded(.down))
        spec.it_value.tv_nsec = Int((seconds - seconds.rounded(.down)) * 1_000_000_000)
        timerfd_settime(descriptor, Self.absolute | Self.cancelOnSet, &spec, nil)
    }

    private func expired() {
        var expirations: UInt64 = 0
        _ = read(descriptor, &expirations, 8) // ECANCELED after a clock change: handled alike
        fired()
    }
}
