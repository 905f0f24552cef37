import Foundation

/// The download queue's bookkeeping as a value: which jobs wait, which run and at what step.
/// Each transition changes it and returns what the queue must then do — start transfers, cancel
/// one, release a lock, read an issue's state from the disk — which ``DownloadQueue`` carries out
/// after leaving its lock. Nothing here touches the disk, the network or an issue's state.
struct DownloadQueueStateMachine: Sendable {
    /// One download, from the moment it has a slot until it ends.
    struct Job: Sendable {
        let issue: Issue
        let requests: CatalogFetcher
        var phase: Phase = .starting
        var attempt = 0
        /// A cancel came; the job ends at its next step.
        var cancelled = false
        /// Whether a resumed file that failed verification was already fetched again from scratch.
        var restartedAfterBadResume = false
        /// What makes this process the issue's only writer, held until the job ends.
        var lock: SharedFileLock?
    }

    enum Phase: Sendable, Equatable {
        /// Its request is being made (before the transfer has an ID).
        case starting
        case transferring(TransferID)
        case waitingToRetry
        case verifying
    }

    /// Jobs waiting for a slot, in order.
    private(set) var waiting: [(issue: Issue, requests: CatalogFetcher)] = []
    /// Jobs with a slot, by issue address.
    private(set) var running: [String: Job] = [:]
    let maximumConcurrent: Int

    init(maximumConcurrent: Int) {
        self.maximumConcurrent = max(1, maximumConcurrent)
    }

    func isBusy(_ issue: Issue) -> Bool {
        running[issue.address] != nil || waiting.contains { $0.issue === issue }
    }

    /// Issues whose download is running, then those waiting.
    var activeIssues: [Issue] { running.values.map(\.issue) + waiting.map(\.issue) }

    /// Queues a download; nil when the issue is already queued or running, else the issues that
    /// now have a slot (their first attempt is to start).
    mutating func enqueue(_ issue: Issue, requests: CatalogFetcher) -> [Issue]? {
        guard !isBusy(issue) else { return nil }
        waiting.append((issue, requests))
        return fillSlots()
    }

    enum CancelAction: Sendable {
        case nothing
        /// It was only waiting: its state is what the disk says.
        case stoppedWaiting
        /// It was waiting to retry: the job ended (its lock to release), and others may start.
        case ended(lock: SharedFileLock?, start: [Issue])
        /// Its transfer is to be cancelled; the job ends when the transfer says so.
        case cancelTransfer(TransferID)
    }

    mutating func cancel(_ issue: Issue) -> CancelAction {
        if let index = waiting.firstIndex(where: { $0.issue === issue }) {
            waiting.remove(at: index)
            return .stoppedWaiting
        }
        guard var job = running[issue.address] else { return .nothing }
        if job.phase == .waitingToRetry {
            running.removeValue(forKey: issue.address)
            return .ended(lock: job.lock, start: fillSlots())
        }
        // A job still making its request sees the flag when its transfer's ID is recorded.
        job.cancelled = true
        running[issue.address] = job
        if case .transferring(let id) = job.phase { return .cancelTransfer(id) }
        return .nothing
    }

    enum AttemptAction: Sendable {
        /// The job is gone (ended by a cancel while it waited to retry).
        case nothing
        /// Cancelled before this attempt: end it.
        case end
        /// Start attempt `attempt` with these requests.
        case start(requests: CatalogFetcher, attempt: Int)
    }

    mutating func startAttempt(_ issue: Issue) -> AttemptAction {
        guard var job = running[issue.address] else { return .nothing }
        guard !job.cancelled else { return .end }
        job.attempt += 1
        job.phase = .starting
        running[issue.address] = job
        return .start(requests: job.requests, attempt: job.attempt)
    }

    /// Whether the job holds the issue's lock already (it is taken once per job).
    func holdsLock(_ issue: Issue) -> Bool { running[issue.address]?.lock != nil }

    mutating func lockTaken(_ issue: Issue, _ lock: SharedFileLock) {
        running[issue.address]?.lock = lock
    }

    /// Records the transfer's ID; true when a cancel came meanwhile and the transfer is to be cancelled.
    mutating func transferStarted(_ issue: Issue, _ id: TransferID) -> Bool {
        guard running[issue.address] != nil else { return false }
        running[issue.address]?.phase = .transferring(id)
        return running[issue.address]?.cancelled ?? false
    }

    /// The job as its transfer ended, or nil when it is gone.
    func job(for issue: Issue) -> Job? { running[issue.address] }

    mutating func verifying(_ issue: Issue) {
        running[issue.address]?.phase = .verifying
    }

    /// The job waits to retry; false when it was cancelled and is to end instead. A wait for a
    /// server that did not answer (`spendsAttempt` false) gives the attempt back.
    mutating func waitToRetry(_ issue: Issue, spendsAttempt: Bool = true) -> Bool {
        guard var job = running[issue.address], !job.cancelled else { return false }
        job.phase = .waitingToRetry
        if !spendsAttempt { job.attempt -= 1 }
        running[issue.address] = job
        return true
    }

    /// A resumed file failed verification: true when it is to be fetched whole, once.
    mutating func restartAfterBadResume(_ issue: Issue) -> Bool {
        guard var job = running[issue.address], !job.restartedAfterBadResume, !job.cancelled else { return false }
        job.restartedAfterBadResume = true
        job.attempt -= 1
        running[issue.address] = job
        return true
    }

    /// Ends the job: its lock to release, and the issues that now have a slot.
    mutating func end(_ issue: Issue) -> (lock: SharedFileLock?, start: [Issue]) {
        let job = running.removeValue(forKey: issue.address)
        return (job?.lock, fillSlots())
    }

    /// Gives waiting jobs a slot while the newsstand's limit allows, skipping those whose
    /// subscription is at its own limit (they keep their place).
    private mutating func fillSlots() -> [Issue] {
        var starting: [Issue] = []
        var index = 0
        while running.count < maximumConcurrent, index < waiting.count {
            let (issue, requests) = waiting[index]
            if let limit = requests.subscription.jobs, running.values.count(where: { $0.issue.subscription == issue.subscription }) >= limit {
                index += 1
                continue
            }
            waiting.remove(at: index)
            running[issue.address] = Job(issue: issue, requests: requests)
            starting.append(issue)
        }
        return starting
    }
}
