import Foundation

extension Newsstand {
    /// What one `sync` did for one subscription.
    public struct SyncOutcome: Sendable {
        public var subscription: String
        /// The refresh's summary, or why it failed.
        public var refresh: Result<Store.RefreshSummary, NewsstandError>
        /// Issues downloaded by the subscription's policy.
        public var downloaded: [String] = []
        /// Downloads that failed, with why.
        public var failed: [(key: String, error: NewsstandError)] = []
    }

    /// What a whole `sync` did.
    public struct SyncReport: Sendable {
        public var outcomes: [SyncOutcome]
        public var removed: [StorageBudget.Removal]

        /// Every subscription refreshed and every download installed.
        public var succeeded: Bool {
            outcomes.allSatisfy { (try? $0.refresh.get()) != nil && $0.failed.isEmpty }
        }

        /// No subscription could be reached (and there was at least one).
        public var nothingReachable: Bool {
            !outcomes.isEmpty && outcomes.allSatisfy { (try? $0.refresh.get()) == nil }
        }
    }

    /// Refreshes every subscription (a server's fresh copy is not asked again), downloads what
    /// each policy asks for, applies the storage budget, and says what happened. Only one sync
    /// runs at a time: a second one throws ``NewsstandError/Code/busy`` at once.
    public func sync() throws(NewsstandError) -> SyncReport {
        let lock = try SyncLock(path: configuration.directories.state + "/sync.lock")
        defer { lock.release() }
        // Each publication's downloads start as soon as its own catalog is in, while the others
        // are still being fetched; an unchanged catalog is read only where a policy or the budget
        // needs its issues.
        let wanted = Locked<[Issue]>([])
        let center = configuration.notificationCenter
        let changed = DispatchSemaphore(value: 0)
        let observer = center.addObserver(forName: Issue.stateDidChangeNotification, object: nil, queue: nil) { _ in changed.signal() }
        defer { center.removeObserver(observer) }
        let results = refreshAllAndWait(respectingFreshness: true, readingUnchanged: false) { [self] store, result in
            if store.numberOfIssues == 0 && needsIssues(store) && !store.loadCache(), (try? result.get()) != nil {
                // The server answered, but the copy it called current no longer reads (loadCache
                // set it aside): fetch it whole. A server that did not answer is not asked twice.
                _ = store.refreshAndWait()
            }
            let issues = issuesToAutoDownload(in: store)
            wanted.withLock { $0 += issues }
            for issue in issues { download(issue) }
        }
        var outcomes = results.map { SyncOutcome(subscription: $0.store.name, refresh: $0.result) }
        let downloads = wanted.withLock { $0 }
        while downloads.contains(where: { $0.state.isActive }) {
            _ = changed.wait(timeout: .now() + 1)
        }
        for store in stores where store.numberOfIssues == 0 && needsIssues(store) {
            store.loadCache()
        }
        for issue in downloads {
            guard let index = outcomes.firstIndex(where: { $0.subscription == issue.subscription }) else { continue }
            switch issue.state {
            case .downloaded: outcomes[index].downloaded.append(issue.localKey)
            case .failed(let error): outcomes[index].failed.append((issue.localKey, error))
            default: outcomes[index].failed.append((issue.localKey, NewsstandError(.cancelled, "The download stopped before it finished.")))
            }
        }
        return SyncReport(outcomes: outcomes, removed: StorageBudget.apply(to: self))
    }
}

extension Newsstand {
    /// Whether a sync must look at a subscription's issues: to download some, or to keep the disk in budget.
    func needsIssues(_ store: Store) -> Bool {
        let subscription = store.subscription
        return subscription.autoDownload != .none || subscription.keepIssues != nil || subscription.keepBytes != nil
            || configuration.maxStorage != nil
    }
}

/// The lock that lets one `sync` run at a time, across processes: `flock` on a file under
/// `$XDG_STATE_HOME/newsstand`, released by the kernel if the process dies.
struct SyncLock: ~Copyable {
    private let descriptor: Int32

    init(path: String) throws(NewsstandError) {
        let folder = (path as NSString).deletingLastPathComponent
        try FileOps.makeDirectory(folder, trusted: folder)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw FileOps.error(errno, "open", path) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw NewsstandError(.busy, "Another newsstand sync is running; this one stops (it will catch up next time).")
        }
        self.descriptor = descriptor
    }

    func release() {
        close(descriptor)
    }
}
