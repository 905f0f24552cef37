import Foundation

/// Runs the newsstand's downloads: a limited number at once across every subscription (and per
/// subscription), each resumed, retried, verified and installed.
///
/// Jobs are keyed by subscription and local key, so two magazines' `2026-01` never collide. One
/// writer per file: an issue that is queued or running is never started twice.
final class DownloadQueue: Sendable {
    private let state: Locked<DownloadQueueStateMachine>
    private let engine: TransferEngine
    private let policy: DownloadPolicy
    /// Called when an issue is installed, before its state says so.
    private let installed: @Sendable (Issue) -> Void

    init(engine: TransferEngine, policy: DownloadPolicy, installed: @escaping @Sendable (Issue) -> Void = { _ in }) {
        self.engine = engine
        self.policy = policy
        self.installed = installed
        state = Locked(DownloadQueueStateMachine(maximumConcurrent: policy.maximumConcurrentDownloads))
    }

    /// Queues a download, its requests made by `requests` (the subscription's credentials to its
    /// own origin only); returns false when the issue is already queued, running or installed.
    @discardableResult
    func enqueue(_ issue: Issue, requests: CatalogFetcher) -> Bool {
        if case .downloaded = issue.state { return false }
        guard let starting = state.withLock({ $0.enqueue(issue, requests: requests) }) else { return false }
        // Queued first, so that an issue that starts at once says so before it says downloading.
        issue.setState(.queued)
        for started in starting { startAttempt(started) }
        return true
    }

    /// Stops a queued or running download; the bytes received so far stay for a later resume.
    func cancel(_ issue: Issue) {
        switch state.withLock({ $0.cancel(issue) }) {
        case .nothing:
            return
        case .stoppedWaiting:
            issue.resetStateFromDisk()
        case .ended(let lock, let starting):
            // Released before the state is read from the disk, and before another job starts.
            lock?.release()
            issue.resetStateFromDisk()
            for started in starting { startAttempt(started) }
        case .cancelTransfer(let id):
            engine.cancel(id)
        }
    }

    /// The issues with a download running, then those waiting for a slot.
    var activeIssues: [Issue] { state.withLock { $0.activeIssues } }

    /// Whether the issue has a download queued or running.
    func isBusy(_ issue: Issue) -> Bool { state.withLock { $0.isBusy(issue) } }

    private func startAttempt(_ issue: Issue) {
        let requests: CatalogFetcher
        switch state.withLock({ $0.startAttempt(issue) }) {
        case .nothing:
            return  // cancelled while waiting to retry: already ended
        case .end:
            end(issue, .none)
            return
        case .start(let given, _):
            requests = given
        }
        let library = issue.library
        let entry = issue.entry
        let (key, type) = (issue.localKey, entry.mediaType)
        if entry.acquisition.throughWebPage {
            // Fetching the shop's page would only give HTML; the reader needs a browser or an account.
            let address = TextSanitizer.inert(Redaction.redact(entry.downloadAddress, secrets: requests.secrets))
            end(issue, .failed(NewsstandError(
                .notDownloadable, "This issue is sold or lent through the publisher's web page, not downloaded here: open \(address) in a browser.")))
            return
        }
        var request: TransferRequest
        do {
            try library.prepareFolder(for: key)
            try lockForWriting(issue)
            request = try requests.request(entry.downloadURL, destination: library.partPath(for: key, as: type))
        } catch {
            end(issue, .failed(error))
            return
        }

        var offset = FileOps.regularFileSize(library.partPath(for: key, as: type)) ?? 0
        let info = library.readPartInfo(key: key, type: type)
        // The URL is recorded with any secret inside it (Kavita's key) masked: it never reaches the disk.
        let recordedAddress = Redaction.redact(entry.downloadAddress, secrets: URLSecrets.secrets(in: requests.subscription.url))
        if offset > 0 && (info?.url != recordedAddress || entry.downloadURL.isFileURL) {
            // Bytes from another URL (or none recorded), or a local copy that is cheap to redo: start over.
            try? library.discardPart(key: key, type: type)
            offset = 0
        }

        request.resumeOffset = offset
        request.ifRange = offset > 0 ? info?.validator : nil
        request.maximumBytes = entry.promisedSize ?? policy.maximumIssueSize
        request.stallTimeout = policy.stallTimeout
        // Hashed as it is written, so that installing waits only for the last bytes.
        request.hashesBody = entry.sha256 != nil

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
        let transfer = engine.start(request, handlers: handlers)
        // A cancel that came after the attempt began but before this ID was known could not stop
        // the transfer: it left the flag, which is honoured here.
        if state.withLock({ $0.transferStarted(issue, transfer) }) { engine.cancel(transfer) }
    }

    private func attemptFinished(_ issue: Issue, result: TransferResult, resumedFrom offset: Int64) {
        guard let job = state.withLock({ $0.job(for: issue) }) else { return }
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
                retry(issue, after: failure, attempt: job.attempt, retryAfter: failure.code == .hostPaused ? result.response.retryAfter : nil)
            } else {
                end(issue, .failed(failure))
            }
            return
        }

        let status = result.response.statusCode
        switch status {
        case 200..<300:
            let resumed = offset > 0 && !result.restarted
            state.withLock { $0.verifying(issue) }
            let digest = result.bodyDigest
            Self.verification().async { [self] in verifyAndInstall(issue, resumed: resumed, digest: digest) }
        case 416:
            // Complete only if the server's size (Content-Range: bytes */N) is the part's size;
            // otherwise the bytes are not what the server has now: start over.
            let partSize = FileOps.regularFileSize(library.partPath(for: key, as: type)) ?? 0
            if let total = ContentRange.unsatisfiedTotal(result.response.contentRange), total == partSize, partSize > 0 {
                state.withLock { $0.verifying(issue) }
                Self.verification().async { [self] in verifyAndInstall(issue, resumed: true, digest: nil) }
            } else {
                try? library.discardPart(key: key, type: type)
                let failure = NewsstandError(.rangeMismatch, "The server no longer has the bytes asked for; starting over.", retryable: true)
                retry(issue, after: failure, attempt: job.attempt, retryAfter: 0)
            }
        default:
            let failure = HTTPFailure.error(result.response, subject: .issue(isFree: issue.entry.isFree), advice: job.requests.advice)
                ?? NewsstandError(.httpStatus, "The server answered HTTP \(status) instead of the issue.")
            if failure.isRetryable {
                retry(issue, after: failure, attempt: job.attempt, retryAfter: result.response.retryAfter)
            } else {
                if failure.code == .notFound { try? library.discardPart(key: key, type: type) }
                end(issue, .failed(failure))
            }
        }
    }

    /// A queue for one issue's verification and install, which spend most of their time waiting
    /// for the disk (the install's flush). A queue of its own runs on a thread of its own: on a
    /// shared concurrent queue, Linux's dispatch runs about one thread per core, so two installs
    /// waiting for the disk held back the other installs and the catalogs still being read (a
    /// refresh's work runs on the same global pool). A sync of 100 new 1 MiB issues took 515 and
    /// 609 ms that way, 480 and 565 ms this way (two sets of 11 and 15 interleaved runs).
    private static func verification() -> DispatchQueue {
        DispatchQueue(label: "newsstand.verify")
    }

    private func verifyAndInstall(_ issue: Issue, resumed: Bool, digest: GrowingFileDigest?) {
        issue.setState(.verifying)
        let library = issue.library
        let (key, type) = (issue.localKey, issue.entry.mediaType)
        do {
            try library.verify(key: key, entry: issue.entry, digest: digest)
            // An HPub that could never be unpacked safely is refused now, not when it is opened.
            if type == .hpub { try HPubArchive.check(library.partPath(for: key, as: type)) }
            try library.install(key: key, type: type)
            installed(issue)
            end(issue, .downloaded(path: library.filePath(for: key, as: type)))
        } catch {
            if error.code == .verificationFailed { try? library.discardPart(key: key, type: type) }
            // The resumed bytes may belong to an older file: fetch it whole, once.
            let again = resumed && error.code == .verificationFailed && state.withLock { $0.restartAfterBadResume(issue) }
            if again {
                startAttempt(issue)
            } else {
                end(issue, .failed(error))
            }
        }
    }

    private func retry(_ issue: Issue, after failure: NewsstandError, attempt: Int, retryAfter: TimeInterval?) {
        if policy.waitsForNetwork, let host = failure.unreachableHost {
            waitForNetwork(issue, host: host, failure: failure)
            return
        }
        guard attempt < policy.maximumAttempts else {
            let message = failure.message + " Gave up after \(attempt) attempts; the partial download is kept."
            end(issue, .failed(NewsstandError(failure.code, message, retryable: true)))
            return
        }
        let delay = policy.delay(after: attempt, retryAfter: retryAfter)
        issue.setState(.retrying(failure, attempt: attempt, delay: delay))
        if !state.withLock({ $0.waitToRetry(issue) }) {
            end(issue, .none)
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [self] in
            startAttempt(issue)
        }
    }

    /// Parks the job until `host` answers a transfer again, or the recheck comes round; its
    /// retries are not spent meanwhile.
    private func waitForNetwork(_ issue: Issue, host: String, failure: NewsstandError) {
        issue.setState(.waitingForNetwork(failure))
        if !state.withLock({ $0.waitToRetry(issue, spendsAttempt: false) }) {
            end(issue, .none)
            return
        }
        let started = Locked(false)
        let resume: @Sendable () -> Void = { [self] in
            if started.withLock({ was in defer { was = true }; return !was }) { startAttempt(issue) }
        }
        if !HostReachability.shared.wait(for: host, resume) {
            // It answered something in the meantime: try at once.
            resume()
            return
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + policy.networkRecheck, execute: resume)
    }

    /// Locks the issue's folder, once per job, so that another newsstand process cannot write
    /// the same part file at the same time.
    private func lockForWriting(_ issue: Issue) throws(NewsstandError) {
        guard !state.withLock({ $0.holdsLock(issue) }) else { return }
        let lock = try FileLock(
            folder: issue.library.folder(for: issue.localKey),
            whenHeld: NewsstandError(.busy, "Another newsstand is already downloading \(issue.address); let it finish."))
        let shared = SharedFileLock(lock)
        state.withLock { $0.lockTaken(issue, shared) }
    }

    /// Frees the slot and sets the final state; `.none` means "whatever is on disk" (after a cancel).
    private func end(_ issue: Issue, _ final: DownloadState?) {
        let (lock, starting) = state.withLock { $0.end(issue) }
        // The issue's lock goes with the job, before the final state is set.
        lock?.release()
        if let final {
            issue.setState(final)
        } else {
            issue.resetStateFromDisk()
        }
        for started in starting { startAttempt(started) }
    }
}
