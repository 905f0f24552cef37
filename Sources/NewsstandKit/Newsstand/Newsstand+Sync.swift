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
    ///
    /// Without `keepingIssues` (for a process that ends with the sync), each store's issues are
    /// dropped as soon as its downloads are started, unless the budget needs them; the
    /// downloads keep their own, and ``Store/loadCache()`` brings the rest back.
    public func sync(keepingIssues: Bool = true) throws(NewsstandError) -> SyncReport {
        try FileOps.makeDirectory(configuration.directories.state, trusted: configuration.directories.state)
        let lock = try FileLock(
            path: configuration.directories.state + "/sync.lock",
            whenHeld: NewsstandError(.busy, "Another newsstand sync is running; this one stops (it will catch up next time)."))
        let report = try syncHoldingTheLock(keepingIssues: keepingIssues)
        // Released only once everything is done (and by the kernel, should the process die).
        _ = consume lock
        return report
    }

    private func syncHoldingTheLock(keepingIssues: Bool) throws(NewsstandError) -> SyncReport {
        // Each publication's downloads start as soon as its own catalog is in, while the others
        // are still being fetched; an unchanged catalog is read only where a policy or the budget
        // needs its issues.
        let wanted = Locked<[Issue]>([])
        let center = configuration.notificationCenter
        let changed = DispatchSemaphore(value: 0)
        let observer = center.addObserver(forName: Issue.stateDidChangeNotification, object: nil, queue: nil) { _ in changed.signal() }
        defer { center.removeObserver(observer) }
        let results = refreshAllAndWait([.respectingFreshness, .leavingUnchangedUnread]) { [self] store, result in
            if store.numberOfIssues == 0 && needsIssues(store) && !store.loadCache(), (try? result.get()) != nil {
                // The server answered, but the copy it called current no longer reads (loadCache
                // set it aside): fetch it whole. A server that did not answer is not asked twice.
                _ = store.refreshAndWait()
            }
            let issues = issuesToAutoDownload(in: store)
            wanted.withLock { $0 += issues }
            for issue in issues { download(issue) }
            // Done with: its issues are freed (its downloads keep their own), so the catalogs read
            // next reuse the memory instead of faulting in fresh pages. A sync of 100 changed
            // catalogs of 1,000 issues peaked at 127 MiB with 25,000 page faults, now 49 MiB and 5,800.
            if !keepingIssues && !StorageBudget.isBudgeted(store, in: self) { store.unloadIssues() }
        }
        var outcomes = results.map { SyncOutcome(subscription: $0.store.name, refresh: $0.result) }
        let downloads = wanted.withLock { $0 }
        while downloads.contains(where: { $0.state.isActive }) {
            _ = changed.wait(timeout: .now() + 1)
        }
        // The budget reads its stores' issues; a caller keeping issues gets those a policy read too.
        for store in stores where store.numberOfIssues == 0 && (keepingIssues ? needsIssues(store) : StorageBudget.isBudgeted(store, in: self)) {
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
        store.subscription.autoDownload != .none || StorageBudget.isBudgeted(store, in: self)
    }
}
