import Foundation

/// Every publication the reader follows, and what they share: one transfer engine, one download
/// queue with one limit across all of them, the reading state and the storage budget.
///
/// Each subscription has its ``Store`` (its catalog session). Methods may be called from any
/// thread; none waits on the network except those that say so.
public final class Newsstand: Sendable {
    /// What a newsstand works with.
    public struct Configuration: Sendable {
        public var directories: Directories
        /// Retries, time-outs, and the number of downloads at once across every subscription.
        public var policy = DownloadPolicy()
        /// Bounds on every catalog (size, depth, inline covers).
        public var limits = CatalogLimits()
        public var notificationCenter: NotificationCenter = .default
        public var engine: TransferEngine = .shared
        /// The most bytes all downloaded issues may take.
        public var maxStorage: Int64?
        /// Refreshes that run at once in ``refreshAll(respectingFreshness:readingUnchanged:each:completion:)``.
        public var refreshConcurrency = 8
        /// Whether the stores make an issue's object only when it is first asked for
        /// (``Store/Configuration/makesIssuesWhenAsked``): for commands, not the shelf.
        public var makesIssuesWhenAsked = false
        /// Whether the reading state is opened on a thread of its own while the newsstand starts
        /// (``ReadingState/openingInBackground(path:)``), for a command whose first work is a
        /// fetch; it then calls ``ReadingState/opened()`` to learn whether the open failed.
        public var opensReadingStateInBackground = false

        public init(directories: Directories = .fromEnvironment()) {
            self.directories = directories
        }

        /// `$XDG_DATA_HOME/newsstand/reading.sqlite3`.
        public var readingStatePath: String { directories.data + "/reading.sqlite3" }
    }

    public let configuration: Configuration
    /// In the configuration's order.
    public let stores: [Store]
    /// The stores by subscription name: found per card and per issue, never by a search.
    private let storesByName: [String: Store]
    public let readingState: ReadingState
    /// The reading state's change counter when it was last looked at.
    private let seenChanges = Locked<Int64?>(nil)
    private let queue: DownloadQueue

    /// A newsstand of `subscriptions`. Libraries made by earlier versions (a folder per catalog
    /// URL hash) are moved to their subscription's folder here, without the network.
    public init(configuration: Configuration, subscriptions: [Subscription]) throws(NewsstandError) {
        self.configuration = configuration
        readingState = configuration.opensReadingStateInBackground
            ? ReadingState.openingInBackground(path: configuration.readingStatePath)
            : try ReadingState(path: configuration.readingStatePath)
        var stores: [Store] = []
        for subscription in subscriptions {
            var storeConfiguration = Store.Configuration(subscription: subscription, directories: configuration.directories)
            storeConfiguration.limits = configuration.limits
            storeConfiguration.notificationCenter = configuration.notificationCenter
            storeConfiguration.engine = configuration.engine
            storeConfiguration.stallTimeout = configuration.policy.stallTimeout
            storeConfiguration.readingState = readingState
            storeConfiguration.makesIssuesWhenAsked = configuration.makesIssuesWhenAsked
            let store = Store(configuration: storeConfiguration)
            try store.library.adoptLegacyLibrary(of: subscription.url)
            stores.append(store)
        }
        self.stores = stores
        storesByName = Dictionary(stores.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let readingState = readingState
        queue = DownloadQueue(engine: configuration.engine, policy: configuration.policy) { issue in
            try? readingState.markDownloaded(subscription: issue.subscription, key: issue.localKey)
            issue.setReading(readingState.record(subscription: issue.subscription, key: issue.localKey))
        }
    }

    public func store(named name: String) -> Store? {
        storesByName[name]
    }

    public func store(for issue: Issue) -> Store? {
        store(named: issue.subscription)
    }

    /// Finds `NAME/ID` (the publisher's ID or the local key), or a bare ID in `subscription`
    /// (or, with none given, in the only subscription that has it).
    public func issue(addressed address: String, in subscription: String? = nil) throws(NewsstandError) -> Issue {
        var name = subscription
        var id = address
        if name == nil, let slash = address.firstIndex(of: "/"), store(named: String(address[..<slash])) != nil {
            name = String(address[..<slash])
            id = String(address[address.index(after: slash)...])
        }
        if let name {
            guard let store = store(named: name) else {
                throw NewsstandError(.unknownSubscription, "There is no subscription named \(TextSanitizer.inert(name)): see `newsstand subscriptions`.")
            }
            if let issue = store.issue(withID: id) { return issue }
            return try Self.onlyMatch(store.issues(matchingPart: id), for: id, where: "in \(name)", list: "newsstand list --subscription \(name)")
        }
        let found = stores.compactMap { $0.issue(withID: id) }
        switch found.count {
        case 1: return found[0]
        case 0: return try Self.onlyMatch(stores.flatMap { $0.issues(matchingPart: id) }, for: id, where: "in any subscription", list: "newsstand list")
        default:
            let names = found.map(\.subscription).joined(separator: ", ")
            throw NewsstandError(.unknownIssue, "\"\(TextSanitizer.inert(id))\" is in \(names): say which, as NAME/\(TextSanitizer.inert(id)).")
        }
    }

    /// The one issue a part of an ID names, or why there is none: nothing, or several (named).
    private static func onlyMatch(_ matches: [Issue], for part: String, where place: String, list: String) throws(NewsstandError) -> Issue {
        switch matches.count {
        case 1:
            return matches[0]
        case 0:
            throw NewsstandError(.unknownIssue, "No issue \"\(TextSanitizer.inert(part))\" \(place): see `\(list)`.")
        default:
            let shown = matches.prefix(3).map { TextSanitizer.inert($0.address) }.joined(separator: ", ")
            let more = matches.count > 3 ? " and \(matches.count - 3) more" : ""
            throw NewsstandError(.unknownIssue, "\"\(TextSanitizer.inert(part))\" is part of \(matches.count) IDs (\(shown)\(more)): give more of it.")
        }
    }

    /// Shows every store's cached catalog, reading several at once; returns how many had one.
    /// Reads only the disk. (A local catalog file is read as a refresh would.)
    @discardableResult
    public func loadCaches(_ stores: [Store]? = nil) -> Int {
        let stores = stores ?? self.stores
        let loaded = Locked(0)
        BoundedConcurrency.runAndWait(stores.count, width: ProcessInfo.processInfo.activeProcessorCount) { index in
            if stores[index].loadWithoutNetwork() { loaded.withLock { $0 += 1 } }
        }
        return loaded.withLock { $0 }
    }

    /// Loads the stores' cached catalogs a few ahead on other threads and hands each to `body`
    /// in order, on this thread; after `body` its issues are dropped, so that a hundred
    /// publications of a thousand issues never sit in memory at once. Returns how many had a copy.
    @discardableResult
    public func withEachCachedStore(_ stores: [Store]? = nil, _ body: (Store, Bool) -> Void) -> Int {
        let stores = stores ?? self.stores
        let ready = stores.map { _ in DispatchSemaphore(value: 0) }
        let found = Locked([Bool](repeating: false, count: stores.count))
        // A few copies are read ahead; each one's `done` is held until `body` has used it.
        let consumed = Locked<[(@Sendable () -> Void)?]>(Array(repeating: nil, count: stores.count))
        BoundedConcurrency.run(stores.count, width: max(2, ProcessInfo.processInfo.activeProcessorCount * 2)) { index, done in
            consumed.withLock { $0[index] = done }
            DispatchQueue.global().async {
                let loaded = stores[index].loadWithoutNetwork()
                found.withLock { $0[index] = loaded }
                ready[index].signal()
            }
        }
        var count = 0
        for (index, store) in stores.enumerated() {
            ready[index].wait()
            let loaded = found.withLock { $0[index] }
            if loaded { count += 1 }
            body(store, loaded)
            store.unloadIssues()
            consumed.withLock { done in defer { done[index] = nil }; return done[index] }?()
        }
        return count
    }

    // MARK: Downloads

    /// Queues a download of the issue; returns false when it is already queued, running or installed.
    @discardableResult
    public func download(_ issue: Issue) -> Bool {
        guard let store = store(for: issue) else { return false }
        return queue.enqueue(issue, requests: store.fetcher)
    }

    /// Stops the issue's download, keeping its bytes for a later resume.
    public func cancelDownload(_ issue: Issue) {
        queue.cancel(issue)
    }

    /// The issues being downloaded or waiting for their turn, across every subscription.
    public var activeIssues: [Issue] { queue.activeIssues }

    /// Removes the installed issue and any partial download; refuses while it is downloading.
    public func delete(_ issue: Issue) throws(NewsstandError) {
        if queue.isBusy(issue) {
            throw NewsstandError(.busy, "\(issue.address) is downloading: cancel it first.")
        }
        try issue.library.delete(key: issue.localKey)
        issue.resetStateFromDisk()
    }

    /// Opens the installed issue with `opener` and records it as opened (and so read).
    public func open(_ issue: Issue, with opener: Opener) throws(NewsstandError) {
        guard let path = issue.installedPath else {
            throw NewsstandError(.notDownloaded, "\(issue.address) is not downloaded: run `newsstand download \(issue.address)` first.")
        }
        if path.hasSuffix("." + MediaType.hpub.fileExtension) {
            // A reader opens an HPub at its first page, which the browser follows from there.
            try opener.open(try HPubArchive.firstPage(of: path, unpackingInto: issue.library.pagesPath(for: issue.localKey)))
        } else {
            try opener.open(path)
        }
        try readingState.markOpened(subscription: issue.subscription, key: issue.localKey)
        reloadReading(issue)
    }

    /// Marks issues read or unread.
    public func setRead(_ read: Bool, _ issues: [Issue]) throws(NewsstandError) {
        try changeReading(issues) { state, name, keys throws(NewsstandError) in try state.setRead(read, subscription: name, keys: keys) }
    }

    /// Pins issues (the budget never removes them) or unpins them.
    public func setPinned(_ pinned: Bool, _ issues: [Issue]) throws(NewsstandError) {
        try changeReading(issues) { state, name, keys throws(NewsstandError) in try state.setPinned(pinned, subscription: name, keys: keys) }
    }

    private func changeReading(
        _ issues: [Issue], _ change: (ReadingState, String, [String]) throws(NewsstandError) -> Void
    ) throws(NewsstandError) {
        for (name, group) in Dictionary(grouping: issues, by: \.subscription) {
            try change(readingState, name, group.map(\.localKey))
        }
        issues.forEach(reloadReading)
    }

    private func reloadReading(_ issue: Issue) {
        issue.setReading(readingState.record(subscription: issue.subscription, key: issue.localKey))
    }

    // MARK: Refreshing

    /// Refreshes every subscription as one group, a few at a time; one failing never stops the
    /// others. `each` runs as each subscription's refresh ends, `completion` once after the last,
    /// both on background threads; `completion` has a result per subscription in the newsstand's order.
    public func refreshAll(
        _ options: Store.RefreshOptions = [],
        each: @escaping @Sendable (Store, Result<Store.RefreshSummary, NewsstandError>) -> Void = { _, _ in },
        completion: @escaping @Sendable ([(store: Store, result: Result<Store.RefreshSummary, NewsstandError>)]) -> Void
    ) {
        let stores = self.stores
        guard !stores.isEmpty else { return completion([]) }
        let results = Locked<[Result<Store.RefreshSummary, NewsstandError>?]>(Array(repeating: nil, count: stores.count))
        let order = Self.spreadByHost(stores.map(\.subscription.url))
        BoundedConcurrency.run(stores.count, width: configuration.refreshConcurrency, job: { turn, done in
            let index = order[turn]
            stores[index].refresh(options) { result in
                results.withLock { $0[index] = result }
                // `each` ends before `done`, so that `completion` comes after every `each`.
                each(stores[index], result)
                done()
            }
        }, finished: {
            let all = results.withLock { $0 }
            completion(zip(stores, all).map { ($0, $1!) })
        })
    }

    /// The order to refresh catalogs in: one per host in turn (forty feeds on one server and
    /// two elsewhere: the two are not left waiting behind the forty, which their host's
    /// connection limit lets through only a few at a time).
    static func spreadByHost(_ urls: [URL]) -> [Int] {
        var hosts: [String] = []
        var byHost: [String: [Int]] = [:]
        for (index, url) in urls.enumerated() {
            let host = HostReachability.key(of: url) ?? url.absoluteString
            if byHost[host] == nil { hosts.append(host) }
            byHost[host, default: []].append(index)
        }
        var order: [Int] = []
        order.reserveCapacity(urls.count)
        var round = 0
        while order.count < urls.count {
            for host in hosts where round < byHost[host]!.count { order.append(byHost[host]![round]) }
            round += 1
        }
        return order
    }

    /// ``refreshAll(_:each:completion:)``, waiting for the group to end. Not on a UI thread.
    public func refreshAllAndWait(
        _ options: Store.RefreshOptions = [],
        each: @escaping @Sendable (Store, Result<Store.RefreshSummary, NewsstandError>) -> Void = { _, _ in }
    ) -> [(store: Store, result: Result<Store.RefreshSummary, NewsstandError>)] {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<[(store: Store, result: Result<Store.RefreshSummary, NewsstandError>)]>([])
        refreshAll(options, each: each) { results in
            outcome.withLock { $0 = results }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0 }
    }

    // MARK: Auto-download

    /// The issues a subscription's `auto_download` asks for that were never downloaded before
    /// (an issue the reader or the budget removed is not fetched again).
    public func issuesToAutoDownload(in store: Store) -> [Issue] {
        let candidates: [Issue]
        switch store.subscription.autoDownload {
        case .none:
            return []
        case .allFree:
            candidates = store.issues.filter { $0.entry.isFree }
        case .latest(let count):
            // Only the newest are made, where the store makes issues when asked.
            candidates = store.newestIssues(count)
        }
        return candidates.filter { issue in
            if case .downloaded = issue.state { return false }
            return !issue.state.isActive && issue.reading?.downloadedAt == nil
        }
    }

    /// Newest release first; undated issues after, in the catalog's order; the first `limit` of them.
    static func newestFirst(_ issues: [Issue], first limit: Int = .max) -> [Issue] {
        // Each date read once: an issue's entry is behind its lock, and a sort of a thousand
        // issues compares ten thousand pairs.
        newestFirst(dates: issues.map { $0.releaseDate }, first: limit).map { issues[$0] }
    }

    /// The places of the newest `limit` of `dates`, as ``newestFirst(_:first:)`` orders them.
    static func newestFirst(dates: [Date?], first limit: Int = .max) -> [Int] {
        func before(_ a: Int, _ b: Int) -> Bool {
            switch (dates[a], dates[b]) {
            case let (x?, y?) where x != y: return x > y
            case (_?, nil): return true
            case (nil, _?): return false
            default: return a < b
            }
        }
        guard limit > 0 else { return [] }
        guard limit < dates.count, limit <= 64 else { return Array(dates.indices.sorted(by: before).prefix(limit)) }
        // `latest` wants a few of a thousand: one pass keeping the best few in order, not a sort.
        var chosen: [Int] = []
        chosen.reserveCapacity(limit + 1)
        for index in dates.indices {
            if chosen.count == limit, let last = chosen.last, !before(index, last) { continue }
            chosen.insert(index, at: chosen.firstIndex { before(index, $0) } ?? chosen.count)
            if chosen.count > limit { chosen.removeLast() }
        }
        return chosen
    }

    // MARK: Interrupted downloads

    /// Whether another process changed the reading state since the last look: a download or a
    /// `sync` from the command line or the timer, while this one (a shelf) is open. One cheap
    /// query; the first look only takes the count.
    public func readingStateChangedElsewhere() -> Bool {
        guard let now = readingState.changeCounter() else { return false }
        return seenChanges.withLock { seen in
            defer { seen = now }
            return seen != nil && seen != now
        }
    }

    /// Brings every publication's issues up to date with what another process did.
    public func catchUpWithOtherProcesses() {
        for store in stores { store.catchUpWithOtherProcesses() }
    }

    /// Stops every download, keeping its bytes, and remembers them for
    /// ``resumeInterruptedDownloads(in:)``. Waits up to `timeout` seconds for the bytes to reach the disk.
    public func stopDownloadsForLater(waitingUpTo timeout: TimeInterval) {
        let active = activeIssues
        guard !active.isEmpty else { return }
        for (name, issues) in Dictionary(grouping: active, by: \.subscription) {
            guard let store = store(named: name) else { continue }
            if let data = try? JSONEncoder().encode(issues.map(\.localKey)),
               (try? FileOps.makeDirectory(store.library.root, trusted: store.library.root)) != nil {
                try? FileOps.writeAtomically(data, to: interruptedListPath(store))
            }
        }
        let center = configuration.notificationCenter
        let settled = DispatchSemaphore(value: 0)
        let observer = center.addObserver(forName: Issue.stateDidChangeNotification, object: nil, queue: nil) { _ in settled.signal() }
        defer { center.removeObserver(observer) }
        active.forEach(cancelDownload)
        let deadline = DispatchTime.now() + timeout
        while !activeIssues.isEmpty, settled.wait(timeout: deadline) == .success {}
    }

    /// Queues again the downloads of `store` that ``stopDownloadsForLater(waitingUpTo:)`` stopped,
    /// once its issues are loaded.
    public func resumeInterruptedDownloads(in store: Store) {
        let path = interruptedListPath(store)
        guard store.numberOfIssues > 0, let data = FileManager.default.contents(atPath: path),
              let keys = try? JSONDecoder().decode([String].self, from: data)
        else { return }
        unlink(path)
        for key in keys {
            if let issue = store.issue(withID: key) { download(issue) }
        }
    }

    private func interruptedListPath(_ store: Store) -> String { store.library.root + "/interrupted.json" }
}
