/// The order in which work goes to the daemon: first in, first out, at most `maxInFlight` calls
/// outstanding (a flood must never hang the daemon), and one call at a time per notification so
/// a replacement waits for the daemon ID of what it replaces. Work for a notification that is
/// still waiting is merged: only the newest version of it is ever sent.
public struct ForwardQueue<Work: Sendable>: Sendable {
    public struct Job: Sendable {
        public let id: UInt32
        public var work: Work
    }

    public let maxInFlight: Int
    /// What a piece of work weighs (its bytes), so the bridge can bound what waits by size too.
    private let weigh: @Sendable (Work) -> Int
    /// The weight of all work waiting (not in flight).
    public private(set) var queuedWeight = 0
    private var waiting: [Job?] = []
    private var waitingStart = 0
    private var waitingIndex: [UInt32: Int] = [:]
    private var busy: Set<UInt32> = []
    /// Work that arrived for a notification while a call for it was outstanding.
    private var parked: [UInt32: Work] = [:]
    private var parkedOrder: [UInt32] = []

    public init(maxInFlight: Int = 8, weigh: @escaping @Sendable (Work) -> Int = { _ in 0 }) {
        self.maxInFlight = max(1, maxInFlight)
        self.weigh = weigh
    }

    public var inFlight: Int { busy.count }
    public var queued: Int { waitingIndex.count + parked.count }

    /// Whether a call for notification `id` is outstanding.
    public func isInFlight(_ id: UInt32) -> Bool { busy.contains(id) }

    /// Adds work for notification `id`; `merge` combines it with work already waiting for the
    /// same notification (old, new) → what to send.
    public mutating func enqueue(_ id: UInt32, _ work: Work, merge: (Work, Work) -> Work = { $1 }) {
        if busy.contains(id) {
            if let old = parked[id] {
                let merged = merge(old, work)
                queuedWeight += weigh(merged) - weigh(old)
                parked[id] = merged
            } else {
                parked[id] = work
                parkedOrder.append(id)
                queuedWeight += weigh(work)
            }
        } else if let index = waitingIndex[id], let old = waiting[index] {
            let merged = merge(old.work, work)
            queuedWeight += weigh(merged) - weigh(old.work)
            waiting[index]?.work = merged
        } else {
            waitingIndex[id] = waiting.count
            waiting.append(Job(id: id, work: work))
            queuedWeight += weigh(work)
        }
    }

    /// Takes the waiting work for `id` out of the queue without sending it (nil when none waits).
    public mutating func withdraw(_ id: UInt32) -> Work? {
        if let work = parked.removeValue(forKey: id) {
            parkedOrder.removeAll { $0 == id }
            queuedWeight -= weigh(work)
            return work
        }
        guard let index = waitingIndex.removeValue(forKey: id) else { return nil }
        defer { waiting[index] = nil }
        if let work = waiting[index]?.work { queuedWeight -= weigh(work) }
        return waiting[index]?.work
    }

    /// Takes the oldest waiting job out (to keep the queue bounded when the daemon is away).
    public mutating func dropOldest() -> Job? {
        if let id = parkedOrder.first, let work = parked.removeValue(forKey: id) {
            parkedOrder.removeFirst()
            queuedWeight -= weigh(work)
            return Job(id: id, work: work)
        }
        while waitingStart < waiting.count {
            let slot = waitingStart
            waitingStart += 1
            if let job = waiting[slot] {
                waiting[slot] = nil
                waitingIndex[job.id] = nil
                queuedWeight -= weigh(job.work)
                compact()
                return job
            }
        }
        return nil
    }

    /// The next job to send, if a slot is free; it counts as in flight until `finish`.
    public mutating func next() -> Job? {
        guard busy.count < maxInFlight else { return nil }
        if let index = parkedOrder.firstIndex(where: { !busy.contains($0) }) {
            let id = parkedOrder.remove(at: index)
            let work = parked.removeValue(forKey: id)!
            busy.insert(id)
            queuedWeight -= weigh(work)
            return Job(id: id, work: work)
        }
        while waitingStart < waiting.count {
            let slot = waitingStart
            guard let job = waiting[slot] else { waitingStart += 1; continue }
            if busy.contains(job.id) { break } // keep order: wait for its call to finish
            waiting[slot] = nil
            waitingStart += 1
            waitingIndex[job.id] = nil
            busy.insert(job.id)
            queuedWeight -= weigh(job.work)
            compact()
            return job
        }
        compact()
        return nil
    }

    /// The call for `id` has finished (answered or failed).
    public mutating func finish(_ id: UInt32) { busy.remove(id) }

    /// Puts a job back at the front (its call could not be made: the daemon went away).
    public mutating func retry(_ job: Job) {
        busy.remove(job.id)
        if let parkedWork = parked.removeValue(forKey: job.id) {
            parkedOrder.removeAll { $0 == job.id }
            queuedWeight -= weigh(parkedWork)
            // The newer work supersedes the failed one.
            enqueueFront(Job(id: job.id, work: parkedWork))
        } else {
            enqueueFront(job)
        }
    }

    private mutating func enqueueFront(_ job: Job) {
        if let index = waitingIndex[job.id], waiting[index] != nil { return } // newer work waits already
        queuedWeight += weigh(job.work)
        if waitingStart > 0 {
            waitingStart -= 1
            waiting[waitingStart] = job
            waitingIndex[job.id] = waitingStart
        } else {
            waiting.insert(job, at: 0)
            waitingIndex = Dictionary(uniqueKeysWithValues: waiting.enumerated().compactMap { index, job in
                job.map { ($0.id, index) }
            })
        }
    }

    private mutating func compact() {
        if waitingIndex.isEmpty, waiting.count > 64 {
            // Drained after a burst: the storage goes back (`removeFirst` would keep its capacity).
            waiting = []
            waitingStart = 0
            waitingIndex = [:]
            return
        }
        guard waitingStart > 1024, waitingStart * 2 > waiting.count else { return }
        waiting.removeFirst(waitingStart)
        waitingStart = 0
        waitingIndex = Dictionary(uniqueKeysWithValues: waiting.enumerated().compactMap { index, job in
            job.map { ($0.id, index) }
        })
    }
}
