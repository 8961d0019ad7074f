import FocusBridgeTime

/// Which Focus is on, and until when: the schedules in local wall-clock time, overridden by a
/// manual change until its end or the next boundary of the schedules.
public struct FocusEngine: Sendable {
    public let focuses: [FocusProfile]
    public let clock: WallClock

    public init(focuses: [FocusProfile], timeZone: TimeZoneRules) {
        self.focuses = focuses
        clock = WallClock(timeZone: timeZone)
    }

    /// One scheduled stretch of a Focus.
    public struct Interval: Equatable, Sendable {
        public let focus: String
        public let start: Instant
        public let end: Instant
    }

    /// The scheduled intervals that touch the days from `from` to `to` (an interval that started
    /// the evening before and crosses midnight included).
    public func intervals(from: Instant, to: Instant) -> [Interval] {
        var result: [Interval] = []
        var day = clock.day(clock.day(of: from), plus: -1)
        let last = clock.day(of: to)
        for _ in 0..<400 {
            let weekday = clock.weekday(of: day)
            for focus in focuses {
                for entry in focus.schedule where entry.days.contains(weekday) {
                    let start = clock.instant(entry.start, on: day)
                    let end = clock.instant(entry.end, on: entry.crossesMidnight ? clock.day(day, plus: 1) : day)
                    if end > start { result.append(Interval(focus: focus.name, start: start, end: end)) }
                }
            }
            if day == last { break }
            day = clock.day(day, plus: 1)
        }
        return result
    }

    /// The Focus its schedule puts on at `now`: of several, the one that started last (then the
    /// first in the file). `until` runs to the end of back-to-back intervals of the same Focus.
    public func scheduled(at now: Instant) -> ActiveFocus? {
        let all = intervals(from: now, to: now.addingTimeInterval(8 * 86_400))
        let current = all.enumerated().filter { $0.element.start <= now && now < $0.element.end }
        guard let pick = current.max(by: { a, b in
            a.element.start != b.element.start ? a.element.start < b.element.start : a.offset > b.offset
        })?.element else { return nil }
        var until = pick.end
        var extended = true
        while extended {
            extended = false
            for interval in all where interval.focus == pick.focus && interval.start <= until && interval.end > until {
                until = interval.end
                extended = true
            }
        }
        return ActiveFocus(name: pick.focus, since: pick.start, until: until, source: .scheduled)
    }

    /// The first start or end of any schedule after `date`, within eight days.
    public func nextScheduleBoundary(after date: Instant) -> Instant? {
        intervals(from: date, to: date.addingTimeInterval(8 * 86_400))
            .flatMap { [$0.start, $0.end] }
            .filter { $0 > date }
            .min()
    }

    /// The Focus on at `now`, a manual change winning while it lasts; then Do Not Disturb while
    /// an app asks for quiet (`inhibited`: since when, and who asked); then a Focus the windows
    /// turn on (what the person does now); then the schedules.
    /// With `lockedSince` (the screen locked, `while-locked = "hold"`), Do Not Disturb when
    /// nothing else is on: a Focus that is on decides alone.
    public func active(at now: Instant, manual: ManualFocus?, window: WindowTrigger.On?,
                       inhibited: (since: Instant, reason: String)? = nil, lockedSince: Instant? = nil) -> ActiveFocus? {
        if let manual, manual.isInEffect(at: now) { return active(at: now, manual: manual) }
        if let inhibited, focuses.contains(where: { $0.name == FocusProfile.doNotDisturbName }) {
            return ActiveFocus(name: FocusProfile.doNotDisturbName, since: inhibited.since, until: nil, source: .inhibit,
                               reason: inhibited.reason)
        }
        if let window, focuses.contains(where: { $0.name == window.focus }) {
            return ActiveFocus(name: window.focus, since: window.since, until: nil, source: .window, reason: window.reason)
        }
        if let scheduled = scheduled(at: now) { return scheduled }
        if let lockedSince, focuses.contains(where: { $0.name == FocusProfile.doNotDisturbName }) {
            return ActiveFocus(name: FocusProfile.doNotDisturbName, since: lockedSince, until: nil, source: .locked,
                               reason: "the screen is locked")
        }
        return nil
    }

    /// The Focus on at `now`, a manual change winning while it lasts.
    public func active(at now: Instant, manual: ManualFocus?) -> ActiveFocus? {
        if let manual, manual.isInEffect(at: now) {
            switch manual.state {
            case .off:
                return nil
            case .on(let name):
                guard focuses.contains(where: { $0.name == name }) else { break }
                return ActiveFocus(name: name, since: manual.since, until: manual.until,
                                   source: manual.device == nil ? .manual : .shared, device: manual.device)
            }
        }
        return scheduled(at: now)
    }

    /// A manual change at `now`: it lasts for `duration`, until `until`, or else until the next
    /// boundary of the schedules (for good when there are none).
    public func manualChange(_ state: ManualFocus.State, at now: Instant, duration: Double? = nil,
                             until: Instant? = nil) -> ManualFocus {
        let end = until ?? duration.map { now.addingTimeInterval($0) } ?? nextScheduleBoundary(after: now)
        return ManualFocus(state: state, since: now, until: end)
    }

    /// When the Focus state may next change by itself: a schedule boundary or the end of a manual change.
    public func nextChange(after now: Instant, manual: ManualFocus?) -> Instant? {
        let candidates = [nextScheduleBoundary(after: now), manual?.until].compactMap { $0 }.filter { $0 > now }
        return candidates.min()
    }
}

/// The Focus that is on.
public struct ActiveFocus: Equatable, Sendable {
    /// `shared`: turned on by hand on another device (`[share]`); `window`: by a window
    /// (`while-fullscreen`, `while-focused`); `inhibit`: Do Not Disturb while an app asks for
    /// quiet (`Inhibit`); `locked`: Do Not Disturb while the screen is locked (`while-locked`).
    public enum Source: String, Sendable { case manual, scheduled, shared, window, inhibit, locked }

    public var name: String
    public var since: Instant
    public var until: Instant?
    public var source: Source
    /// Why it is on, for a Focus the windows turned on ("while VLC is fullscreen").
    public var reason: String?
    /// The device it was turned on at, when shared.
    public var device: String?

    public init(name: String, since: Instant, until: Instant?, source: Source, reason: String? = nil, device: String? = nil) {
        self.name = name
        self.since = since
        self.until = until
        self.source = source
        self.reason = reason
        self.device = device
    }
}

/// A Focus turned on or off by hand (`focusctl focus on|off`), kept across restarts.
public struct ManualFocus: Equatable, Codable, Sendable {
    public enum State: Equatable, Codable, Sendable {
        case on(String)
        case off
    }

    public var state: State
    public var since: Instant
    /// When the change stops winning over the schedules; nil: until changed again.
    public var until: Instant?
    /// The device the change was made at, when it came from another one (`[share]`).
    public var device: String?

    public init(state: State, since: Instant, until: Instant?, device: String? = nil) {
        self.state = state
        self.since = since
        self.until = until
        self.device = device
    }

    public func isInEffect(at now: Instant) -> Bool { until.map { now < $0 } ?? true }

    /// Whether a value read back from the state file can be used: its times within
    /// `TimeBounds` and in order (a poisoned value is discarded, never acted on).
    public var isPlausible: Bool {
        guard TimeBounds.contains(since) else { return false }
        guard let until else { return true }
        return TimeBounds.contains(until) && until >= since
    }
}
