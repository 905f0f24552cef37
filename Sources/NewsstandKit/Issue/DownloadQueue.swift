import Foundation

/// Runs issue downloads: a limited number at once, each resumed, retried, verified and installed.
///
/// One writer per file: an issue that is queued or running is never started twice.
final class DownloadQueue: Sendable {
    private struct Job: Sendable {
        let issue: Issue
        var transfer: TransferID?
        var waitingToRetry = false
        /// The lock that makes this process the issue's only writer, held until the job ends.
        var lock: Int32 = -1
        var attempt = 0
        var cancelled = false
        /// Whether a resumed file that failed verification was already downloaded again from scratch.
        var restartedAfterBadResume = false
    }

    private struct State: Sendable {
        var waiting: [Issue] = []
        var running: [String: Job] = [:]
    }

    private let state = Locked(State())
    private let engine: TransferEngine
    private let policy: DownloadPolicy
    private let verification = DispatchQueue(label: "newsstand.verify", attributes: .concurrent)

    init(engine: TransferEngine, policy: DownloadPolicy) {
        self.engine = engine
        self.policy = policy
    }

    /// Queues a download; returns false when the issue is already queued, running or installed.
    @discardableResult
    func enqueue(_ issue: Issue) -> Bool {
        if case .downloaded = issue.state { return false }
        let added = state.withLock { state -> Bool in
            guard state.running[issue.id] == nil, !state.waiting.contains(where: { $0 === issue }) else { return false }
            state.waiting.append(issue)
            return true
        }
        guard added else { return false }
        issue.setState(.queued)
        pump()
        return true
    }

    /// Stops a queued or running download; the bytes received so far stay for a later resume.
    func cancel(_ issue: Issue) {
        enum Action { case nothing, stopWaiting, freeSlot, cancelTransfer(TransferID) }
        let action = state.withLock { state -> Action in
            if let index = state.waiting.firstIndex(where: { $0 === issue }) {
                state.waiting.remove(at: index)
                return .stopWaiting
            }
            guard var job = state.running[issue.id] else { return .nothing }
            if job.waitingToRetry {
                state.running.removeValue(forKey: issue.id)
                return .freeSlot
            }
            job.cancelled = true
            state.running[issue.id] = job
            return job.transfer.map(Action.cancelTransfer) ?? .nothing
        }
        switch action {
        case .nothing:
            return
        case .stopWaiting:
            issue.resetStateFromDisk()
        case .freeSlot:
            issue.resetStateFromDisk()
            pump()
        case .cancelTransfer(let id):
            engine.cancel(id)
        }
    }

    /// The issues with a download running, then those waiting for a slot.
    var activeIssues: [Issue] {
        state.withLock { $0.running.values.map(\.issue) + $0.waiting }
    }

    /// Whether the issue has a download queued or running.
    func isBusy(_ issue: Issue) -> Bool {
        state.withLock { $0.running[issue.id] != nil || $0.waiting.contains(where: { $0 === issue }) }
    }

    private func pump() {
        let starting = state.withLock { state -> [Issue] in
            var starting: [Issue] = []
            while state.running.count < max(1, policy.maximumConcurrentDownloads), !state.waiting.isEmpty {
                let issue = state.waiting.removeFirst()
                state.running[issue.id] = Job(issue: issue)
                starting.append(issue)
            }
            return starting
        }
        for issue in starting { startAttempt(issue) }
    }

    private func startAttempt(_ issue: Issue) {
        let proceed = state.withLock { state -> Bool? in
            guard var job = state.running[issue.id] else { return nil }
            guard !job.cancelled else { return false }
            job.attempt += 1
            job.transfer = nil
            job.waitingToRetry = false
            state.running[issue.id] = job
            return true
        }
        switch proceed {
        case nil: return  // cancelled while waiting to retry: already ended
        case false?: end(issue, .none); return
        case true?: break
        }
        let library = issue.library
        let entry = issue.entry
        do {
            try library.prepareFolder(for: issue.id)
            try lockForWriting(issue)
        } catch {
            end(issue, .failed(error))
            return
        }

        var offset = FileOps.regularFileSize(library.partPath(for: issue.id)) ?? 0
        let info = library.readPartInfo(id: issue.id)
        if offset > 0 && (info?.url != entry.downloadAddress || entry.downloadURL.isFileURL) {
            // Bytes from another URL, or a local copy that is cheap to redo: start over.
            try? library.discardPart(id: issue.id)
            offset = 0
        }

        var request = TransferRequest(url: entry.downloadURL, destination: library.partPath(for: issue.id))
        request.resumeOffset = offset
        request.ifRange = offset > 0 ? info?.validator : nil
        request.maximumBytes = entry.size ?? policy.maximumIssueSize
        request.allowsFileURLs = entry.downloadURL.isFileURL
        request.stallTimeout = policy.stallTimeout

        issue.setState(.downloading(DownloadProgress(received: offset, total: entry.size)))
        let url = entry.downloadAddress
        let resumedFrom = offset
        let handlers = TransferHandlers(
            response: { response in
                // Saved before the first body byte, so that a kill at any moment leaves a resumable part.
                if (200..<300).contains(response.statusCode) {
                    library.writePartInfo(PartInfo(url: url, validator: response.resumeValidator), id: issue.id)
                }
            },
            progress: { received, total in
                issue.updateProgress(received: received, total: total)
            },
            completion: { [self] result in
                attemptFinished(issue, result: result, resumedFrom: resumedFrom)
            }
        )
        let transfer = engine.start(request, handlers: handlers)
        state.withLock { state in
            state.running[issue.id]?.transfer = transfer
        }
    }

    private func attemptFinished(_ issue: Issue, result: TransferResult, resumedFrom offset: Int64) {
        let job = state.withLock { $0.running[issue.id] } ?? Job(issue: issue)
        if job.cancelled || result.failure?.code == .cancelled {
            end(issue, .none)
            return
        }
        let library = issue.library
        if let failure = result.failure {
            if failure.code == .tooLarge || failure.code == .rangeMismatch {
                try? library.discardPart(id: issue.id)
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
            let partSize = FileOps.regularFileSize(library.partPath(for: issue.id)) ?? 0
            if let total = Self.unsatisfiedRangeTotal(result.response.contentRange), total == partSize, partSize > 0 {
                verification.async { [self] in verifyAndInstall(issue, resumed: true) }
            } else {
                try? library.discardPart(id: issue.id)
                let failure = NewsstandError(.rangeMismatch, "The server no longer has the bytes asked for; starting over.", retryable: true)
                retry(issue, after: failure, attempt: job.attempt, retryAfter: 0)
            }
        case 401, 402, 403:
            let message = issue.entry.isFree
                ? "The server refused access (HTTP \(status)): check your credentials in ~/.netrc."
                : "This issue is not free: the server wants a subscription (HTTP \(status)); add your credentials to ~/.netrc."
            end(issue, .failed(NewsstandError(.unauthorized, message)))
        case 404, 410:
            try? library.discardPart(id: issue.id)
            end(issue, .failed(NewsstandError(.notFound, "The server has no such issue (HTTP \(status)); the catalog may be out of date: refresh it.")))
        case 408, 429, 500...599:
            let failure = NewsstandError(.httpStatus, "The server is busy or failing (HTTP \(status)).", retryable: true)
            retry(issue, after: failure, attempt: job.attempt, retryAfter: result.response.retryAfter)
        default:
            end(issue, .failed(NewsstandError(.httpStatus, "The server answered HTTP \(status) instead of the issue.")))
        }
    }

    /// N in `Content-Range: bytes */N`, the form a 416 answer uses.
    static func unsatisfiedRangeTotal(_ header: String?) -> Int64? {
        guard let header, header.lowercased().hasPrefix("bytes */") else { return nil }
        return Int64(header.dropFirst(8).trimmingCharacters(in: .whitespaces))
    }

    private func verifyAndInstall(_ issue: Issue, resumed: Bool) {
        issue.setState(.verifying)
        let library = issue.library
        do {
            try library.verify(id: issue.id, entry: issue.entry)
            try library.install(id: issue.id)
            end(issue, .downloaded(path: library.pdfPath(for: issue.id)))
        } catch {
            if error.code == .verificationFailed { try? library.discardPart(id: issue.id) }
            let again = state.withLock { state -> Bool in
                guard resumed, error.code == .verificationFailed, var job = state.running[issue.id],
                      !job.restartedAfterBadResume, !job.cancelled
                else { return false }
                // The resumed bytes may belong to an older file: fetch it whole, once.
                job.restartedAfterBadResume = true
                job.attempt -= 1
                state.running[issue.id] = job
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
            state.running[issue.id]?.transfer = nil
            state.running[issue.id]?.waitingToRetry = true
            return state.running[issue.id]?.cancelled ?? true
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
        guard state.withLock({ $0.running[issue.id]?.lock ?? 0 }) < 0 else { return }
        let path = issue.library.partPath(for: issue.id) + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw FileOps.error(errno, "lock", path) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw NewsstandError(.fileSystem, "Another newsstand is already downloading \(issue.id); let it finish.")
        }
        state.withLock { $0.running[issue.id]?.lock = descriptor }
    }

    /// Frees the slot and sets the final state; `.none` means "whatever is on disk" (after a cancel).
    private func end(_ issue: Issue, _ final: DownloadState?) {
        let job = state.withLock { $0.running.removeValue(forKey: issue.id) }
        if let lock = job?.lock, lock >= 0 { close(lock) }
        if let final {
            issue.setState(final)
        } else {
            issue.resetStateFromDisk()
        }
        pump()
    }
}
