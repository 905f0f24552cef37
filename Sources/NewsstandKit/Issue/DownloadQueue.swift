import Foundation

/// Runs the newsstand's downloads: a limited number at once across every subscription (and per
/// subscription), each resumed, retried, verified and installed.
///
/// Jobs are keyed by subscription and local key, so two magazines' `2026-01` never collide. One
/// writer per file: an issue that is queued or running is never started twice.
final class DownloadQueue: Sendable {
    private struct Job: Sendable {
        let issue: Issue
        let store: Store
        var transfer: TransferID?
        var waitingToRetry = false
        /// The lock that makes this process the issue's only writer, held until the job ends.
        var lock: SharedFileLock?
        var attempt = 0
        var cancelled = false
        /// Whether a resumed file that failed verification was already downloaded again from scratch.
        var restartedAfterBadResume = false
    }

    private struct State: Sendable {
        var waiting: [(issue: Issue, store: Store)] = []
        var running: [String: Job] = [:]
    }

    private let state = Locked(State())
    private let engine: TransferEngine
    private let policy: DownloadPolicy
    private let verification = DispatchQueue(label: "newsstand.verify", attributes: .concurrent)
    /// Called when an issue is installed, before its state says so.
    private let installed: @Sendable (Issue) -> Void
    /// For tests: runs after a job is recorded and before its transfer starts.
    static let transferWillStart = Locked<(@Sendable (Issue) -> Void)?>(nil)

    init(engine: TransferEngine, policy: DownloadPolicy, installed: @escaping @Sendable (Issue) -> Void = { _ in }) {
        self.engine = engine
        self.policy = policy
        self.installed = installed
    }

    /// Queues a download; returns false when the issue is already queued, running or installed.
    @discardableResult
    func enqueue(_ issue: Issue, store: Store) -> Bool {
        if case .downloaded = issue.state { return false }
        let added = state.withLock { state -> Bool in
            guard state.running[issue.address] == nil, !state.waiting.contains(where: { $0.issue === issue }) else { return false }
            state.waiting.append((issue, store))
            return true
        }
        guard added else { return false }
        issue.setState(.queued)
        pump()
        return true
    }

    /// Stops a queued or running download; the bytes received so far stay for a later resume.
    func cancel(_ issue: Issue) {
        enum Action { case nothing, stopWaiting, freeSlot(lock: SharedFileLock?), cancelTransfer(TransferID) }
        let action = state.withLock { state -> Action in
            if let index = state.waiting.firstIndex(where: { $0.issue === issue }) {
                state.waiting.remove(at: index)
                return .stopWaiting
            }
            guard var job = state.running[issue.address] else { return .nothing }
            if job.waitingToRetry {
                state.running.removeValue(forKey: issue.address)
                return .freeSlot(lock: job.lock)
            }
            // A transfer not started yet sees the flag when its ID is recorded.
            job.cancelled = true
            state.running[issue.address] = job
            return job.transfer.map(Action.cancelTransfer) ?? .nothing
        }
        switch action {
        case .nothing:
            return
        case .stopWaiting:
            issue.resetStateFromDisk()
        case .freeSlot(let lock):
            // The job ends here, not in end(): its lock goes with it, before the state is read.
            lock?.release()
            issue.resetStateFromDisk()
            pump()
        case .cancelTransfer(let id):
            engine.cancel(id)
        }
    }

    /// The issues with a download running, then those waiting for a slot.
    var activeIssues: [Issue] {
        state.withLock { $0.running.values.map(\.issue) + $0.waiting.map(\.issue) }
    }

    /// Whether the issue has a download queued or running.
    func isBusy(_ issue: Issue) -> Bool {
        state.withLock { $0.running[issue.address] != nil || $0.waiting.contains(where: { $0.issue === issue }) }
    }

    /// Starts waiting jobs while the newsstand's limit allows, skipping those whose subscription
    /// is at its own limit (they keep their place).
    private func pump() {
        let starting = state.withLock { state -> [Issue] in
            var starting: [Issue] = []
            var index = 0
            while state.running.count < max(1, policy.maximumConcurrentDownloads), index < state.waiting.count {
                let (issue, store) = state.waiting[index]
                if let limit = store.subscription.jobs,
                   state.running.values.count(where: { $0.issue.subscription == issue.subscription }) >= limit {
                    index += 1
                    continue
                }
                state.waiting.remove(at: index)
                state.running[issue.address] = Job(issue: issue, store: store)
                starting.append(issue)
            }
            return starting
        }
        for issue in starting { startAttempt(issue) }
    }

    private func startAttempt(_ issue: Issue) {
        let proceed = state.withLock { state -> (store: Store, cancelled: Bool)? in
            guard var job = state.running[issue.address] else { return nil }
            guard !job.cancelled else { return (job.store, true) }
            job.attempt += 1
            job.transfer = nil
            job.waitingToRetry = false
            state.running[issue.address] = job
            return (job.store, false)
        }
        guard let (store, cancelled) = proceed else { return }  // cancelled while waiting to retry: already ended
        if cancelled {
            end(issue, .none)
            return
        }
        let library = issue.library
        let entry = issue.entry
        let (key, type) = (issue.localKey, entry.mediaType)
        if entry.acquisition.throughWebPage {
            // Fetching the shop's page would only give HTML; the reader needs a browser or an account.
            let address = TextSanitizer.inert(Redaction.redact(entry.downloadAddress, secrets: store.secrets))
            end(issue, .failed(NewsstandError(
                .notDownloadable, "This issue is sold or lent through the publisher's web page, not downloaded here: open \(address) in a browser.")))
            return
        }
        var request: TransferRequest
        do {
            try library.prepareFolder(for: key)
            try lockForWriting(issue)
            request = try store.makeRequest(entry.downloadURL, destination: library.partPath(for: key, as: type))
        } catch {
            end(issue, .failed(error))
            return
        }

        var offset = FileOps.regularFileSize(library.partPath(for: key, as: type)) ?? 0
        let info = library.readPartInfo(key: key, type: type)
        // The URL is recorded with any secret inside it (Kavita's key) masked: it never reaches the disk.
        let recordedAddress = Redaction.redact(entry.downloadAddress, secrets: URLSecrets.secrets(in: store.subscription.url))
        if offset > 0 && (info?.url != recordedAddress || entry.downloadURL.isFileURL) {
            // Bytes from another URL (or none recorded), or a local copy that is cheap to redo: start over.
            try? library.discardPart(key: key, type: type)
            offset = 0
        }

        request.resumeOffset = offset
        request.ifRange = offset > 0 ? info?.validator : nil
        request.maximumBytes = entry.promisedSize ?? policy.maximumIssueSize
        request.stallTimeout = policy.stallTimeout

        issue.setState(.downloading(DownloadProgress(received: offset, total: entry.size)))
        let url = recordedAddress
        let resumedFrom = offset
        let handlers = TransferHandlers(
            response: { response in
                // Saved before the first body byte, so that a kill at any moment leaves a resumable part.
                if (200..<300).contains(response.statusCode) {
                    library.writePartInfo(PartInfo(url: url, validator: response.resumeValidator, serverFileName: response.fileName), key: key, type: type)
                }
            },
            progress: { received, total in
                issue.updateProgress(received: received, total: total)
            },
            completion: { [self] result in
                attemptFinished(issue, result: result, resumedFrom: resumedFrom)
            }
        )
        Self.transferWillStart.withLock { $0 }?(issue)
        let transfer = engine.start(request, handlers: handlers)
        // A cancel that came after the job was recorded but before this ID was could not stop
        // the transfer: it left the flag, which is honoured here.
        let cancelledMeanwhile = state.withLock { state -> Bool in
            state.running[issue.address]?.transfer = transfer
            return state.running[issue.address]?.cancelled ?? false
        }
        if cancelledMeanwhile { engine.cancel(transfer) }
    }

    private func attemptFinished(_ issue: Issue, result: TransferResult, resumedFrom offset: Int64) {
        guard let job = state.withLock({ $0.running[issue.address] }) else { return }
        if job.cancelled || result.failure?.code == .cancelled {
            end(issue, .none)
            return
        }
        let library = issue.library
        let (key, type) = (issue.localKey, issue.entry.mediaType)
        if let failure = result.failure {
            if failure.code == .tooLarge || failure.code == .rangeMismatch {
                try? library.discardPart(key: key, type: type)
            }
            if failure.isRetryable {
                retry(issue, after: failure, attempt: job.attempt, retryAfter: nil)
            } else {
                end(issue, .failed(failure))
            }
            return
        }

        let status = result.response.statusCode
        switch status {
        case 200..<300:
            let resumed = offset > 0 && !result.restarted
            verification.async { [self] in verifyAndInstall(issue, resumed: resumed) }
        case 416:
            // Complete only if the server's size (Content-Range: bytes */N) is the part's size;
            // otherwise the bytes are not what the server has now: start over.
            let partSize = FileOps.regularFileSize(library.partPath(for: key, as: type)) ?? 0
            if let total = ContentRange.unsatisfiedTotal(result.response.contentRange), total == partSize, partSize > 0 {
                verification.async { [self] in verifyAndInstall(issue, resumed: true) }
            } else {
                try? library.discardPart(key: key, type: type)
                let failure = NewsstandError(.rangeMismatch, "The server no longer has the bytes asked for; starting over.", retryable: true)
                retry(issue, after: failure, attempt: job.attempt, retryAfter: 0)
            }
        default:
            let failure = HTTPFailure.error(result.response, subject: .issue(isFree: issue.entry.isFree), advice: job.store.advice)
                ?? NewsstandError(.httpStatus, "The server answered HTTP \(status) instead of the issue.")
            if failure.isRetryable {
                retry(issue, after: failure, attempt: job.attempt, retryAfter: result.response.retryAfter)
            } else {
                if failure.code == .notFound { try? library.discardPart(key: key, type: type) }
                end(issue, .failed(failure))
            }
        }
    }

    private func verifyAndInstall(_ issue: Issue, resumed: Bool) {
        issue.setState(.verifying)
        let library = issue.library
        let (key, type) = (issue.localKey, issue.entry.mediaType)
        do {
            try library.verify(key: key, entry: issue.entry)
            // An HPub that could never be unpacked safely is refused now, not when it is opened.
            if type == .hpub { try HPubArchive.check(library.partPath(for: key, as: type)) }
            try library.install(key: key, type: type)
            installed(issue)
            end(issue, .downloaded(path: library.filePath(for: key, as: type)))
        } catch {
            if error.code == .verificationFailed { try? library.discardPart(key: key, type: type) }
            let again = state.withLock { state -> Bool in
                guard resumed, error.code == .verificationFailed, var job = state.running[issue.address],
                      !job.restartedAfterBadResume, !job.cancelled
                else { return false }
                // The resumed bytes may belong to an older file: fetch it whole, once.
                job.restartedAfterBadResume = true
                job.attempt -= 1
                state.running[issue.address] = job
                return true
            }
            if again {
                startAttempt(issue)
            } else {
                end(issue, .failed(error))
            }
        }
    }

    private func retry(_ issue: Issue, after failure: NewsstandError, attempt: Int, retryAfter: TimeInterval?) {
        guard attempt < policy.maximumAttempts else {
            let message = failure.message + " Gave up after \(attempt) attempts; the partial download is kept."
            end(issue, .failed(NewsstandError(failure.code, message, retryable: true)))
            return
        }
        let delay = policy.delay(after: attempt, retryAfter: retryAfter)
        issue.setState(.retrying(failure, attempt: attempt, delay: delay))
        let cancelled = state.withLock { state -> Bool in
            state.running[issue.address]?.transfer = nil
            state.running[issue.address]?.waitingToRetry = true
            return state.running[issue.address]?.cancelled ?? true
        }
        if cancelled {
            end(issue, .none)
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            startAttempt(issue)
        }
    }

    /// Takes the issue's lock file, once per job, so that another newsstand process cannot write
    /// the same part file at the same time.
    private func lockForWriting(_ issue: Issue) throws(NewsstandError) {
        guard state.withLock({ $0.running[issue.address]?.lock == nil }) else { return }
        let lock = try FileLock(
            path: issue.library.folder(for: issue.localKey) + "/.lock",
            whenHeld: NewsstandError(.busy, "Another newsstand is already downloading \(issue.address); let it finish."))
        let shared = SharedFileLock(lock)
        state.withLock { $0.running[issue.address]?.lock = shared }
    }

    /// Frees the slot and sets the final state; `.none` means "whatever is on disk" (after a cancel).
    private func end(_ issue: Issue, _ final: DownloadState?) {
        // The issue's lock goes with the job, before the final state is set.
        state.withLock { $0.running.removeValue(forKey: issue.address) }?.lock?.release()
        if let final {
            issue.setState(final)
        } else {
            issue.resetStateFromDisk()
        }
        pump()
    }
}
