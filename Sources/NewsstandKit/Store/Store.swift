import Foundation

/// One publication's catalog session: loads its catalog, keeps the cached copy, falls back to it
/// offline and says so. Downloads belong to the ``Newsstand``, which owns every store.
///
/// A store has no user interface. It posts ``statusDidChangeNotification`` when its status
/// changes and ``issuesDidChangeNotification`` when the list of issues is replaced, with itself
/// as `object`, on the thread that made the change; observers should register with `queue: nil`
/// and return quickly. Every method may be called from any thread, and none waits on the
/// network except ``refreshAndWait(respectingFreshness:)``.
public final class Store: Sendable {
    /// Posted when ``status`` changes.
    public static let statusDidChangeNotification = Notification.Name("NewsstandStoreStatusDidChange")
    /// Posted when the list of issues is replaced by a newly loaded catalog.
    public static let issuesDidChangeNotification = Notification.Name("NewsstandStoreIssuesDidChange")

    /// What a store works with.
    public struct Configuration: Sendable {
        public var subscription: Subscription
        public var directories: Directories
        /// Bounds on every catalog (size, depth, inline covers).
        public var limits = CatalogLimits()
        /// Pages of a paginated feed read at most on one refresh.
        public var maximumPages = 100
        /// Entries of a paginated feed read at most on one refresh.
        public var maximumEntries = 200_000
        public var notificationCenter: NotificationCenter = .default
        public var engine: TransferEngine = .shared
        /// Seconds without a byte before a transfer gives up.
        public var stallTimeout = 30
        /// Where what the reader did is kept; nil keeps nothing.
        public var readingState: ReadingState?
        /// Whether an issue's object is made only when it is first asked for, not with its
        /// catalog: for a command that looks at a few issues of each catalog (a sync), not for
        /// the shelf, which shows them all and should not make them on its own thread.
        public var makesIssuesWhenAsked = false

        public init(subscription: Subscription, directories: Directories = .fromEnvironment()) {
            self.subscription = subscription
            self.directories = directories
        }
    }

    public let configuration: Configuration
    /// Where this publication's issues are kept.
    public let library: Library
    let cache: CatalogCache
    /// Every request of this publication (catalog, pages, covers, downloads): its credentials,
    /// headers and query for the catalog's origin only.
    let fetcher: CatalogFetcher
    var center: NotificationCenter { configuration.notificationCenter }
    /// What its issues share.
    let issueHome: Issue.Home

    struct Contents: Sendable {
        var status: Status = .idle
        var title: String?
        var issues = IssueList()
        var warnings: [CatalogWarning] = []
        var format: CatalogFormatKind?
        var search: FeedSearch?
        var navigation: [FeedLink] = []
        var itemsWithoutDownload = 0
        var remarks: [CatalogRemark] = []
        var fetchedAt: Date?
        var source: CatalogSource?
        var refreshing = false
        var refreshWaiters: [@Sendable (Result<RefreshSummary, NewsstandError>) -> Void] = []
    }

    let contents = Locked(Contents())

    public init(configuration: Configuration) {
        self.configuration = configuration
        let name = configuration.subscription.name
        library = Library(directories: configuration.directories, subscriptionName: name)
        cache = CatalogCache(directories: configuration.directories, subscriptionName: name)
        issueHome = Issue.Home(subscription: name, library: library, center: configuration.notificationCenter)
        fetcher = CatalogFetcher(
            subscription: configuration.subscription, directories: configuration.directories, engine: configuration.engine,
            limits: configuration.limits, stallTimeout: configuration.stallTimeout)
    }

    // MARK: Lookup

    public var subscription: Subscription { configuration.subscription }
    /// The subscription's name: its folder and its handle in commands.
    public var name: String { configuration.subscription.name }
    public var status: Status { contents.withLock { $0.status } }
    /// The magazine or publisher, when the catalog names it.
    public var catalogTitle: String? { contents.withLock { $0.title } }
    /// The subscription's own title, else the catalog's, else its name.
    public var displayTitle: String { subscription.title ?? catalogTitle ?? name }
    /// The entries skipped at the last load, and why.
    public var warnings: [CatalogWarning] { contents.withLock { $0.warnings } }
    /// The format the catalog was last read in.
    public var format: CatalogFormatKind? { contents.withLock { $0.format } }
    /// How to search the publisher's server, when its feed says.
    public var search: FeedSearch? { contents.withLock { $0.search } }
    /// Links to other feeds the catalog holds (a navigation feed's sections).
    public var navigation: [FeedLink] { contents.withLock { $0.navigation } }
    /// Feed items with nothing to download, skipped at the last load.
    public var itemsWithoutDownload: Int { contents.withLock { $0.itemsWithoutDownload } }
    /// Sentences about the last load as a whole (a pagination cut short).
    public var remarks: [CatalogRemark] { contents.withLock { $0.remarks } }
    /// When the shown catalog was fetched, and from where.
    public var catalogFetchedAt: Date? { contents.withLock { $0.fetchedAt } }
    public var catalogSource: CatalogSource? { contents.withLock { $0.source } }

    public var numberOfIssues: Int { contents.withLock { $0.issues.count } }
    public func issue(at index: Int) -> Issue? {
        contents.withLock { $0.issues.issue(at: index) }
    }
    /// The issue with this publisher's ID, or with this local key.
    public func issue(withID id: String) -> Issue? {
        contents.withLock { contents in
            let (positions, entries) = (contents.issues.positions, contents.issues.entries)
            if let position = positions.position(of: LocalKey.make(for: id), in: entries), entries[position].id == id {
                return contents.issues.issue(at: position)
            }
            return positions.position(of: id, in: entries).flatMap { contents.issues.issue(at: $0) }
        }
    }
    /// The issues whose ID a part names, as git takes a prefix of a hash: the ID's start, or
    /// the start of what follows any `:` or `/` in it (the UUID of `urn:uuid:…`, the last
    /// segment of an `http://…` ID), or the start of the local key. At least 4 characters.
    public func issues(matchingPart part: String) -> [Issue] {
        guard part.count >= 4 else { return [] }
        return issues.filter { issue in
            if issue.id.hasPrefix(part) || issue.localKey.hasPrefix(part) { return true }
            let id = issue.id
            var index = id.startIndex
            while let separator = id[index...].firstIndex(where: { $0 == ":" || $0 == "/" }) {
                index = id.index(after: separator)
                if id[index...].hasPrefix(part) { return true }
            }
            return false
        }
    }

    /// Every issue, in the catalog's order.
    public var issues: [Issue] { contents.withLock { $0.issues.all() } }

    /// Shows what can be shown without the network: the cached copy, or a local catalog file read
    /// anew. Says whether there was one.
    @discardableResult
    public func loadWithoutNetwork() -> Bool {
        subscription.url.isFileURL ? (try? refreshAndWait().get()) != nil : loadCache()
    }

    /// What the cached copy's small info says (its title, issue count and when it was
    /// fetched) without reading the catalog: a newsstand's first frame of many publications.
    public var cachedSummary: (title: String?, issueCount: Int?, fetchedAt: Date)? {
        guard !subscription.url.isFileURL, let info = cache.readInfo() else { return nil }
        return (info.title, info.issueCount, info.fetchedAt)
    }

    /// Whether a copy of the catalog can be shown without the network (a cached copy, or a local file).
    public var hasCachedCopy: Bool {
        subscription.url.isFileURL ? FileManager.default.fileExists(atPath: subscription.url.path) : cache.readInfo() != nil
            || cache.hasLegacyCopy(of: subscription.url)
    }

    /// Drops the loaded issues (not their files): a listing of many publications keeps one at a
    /// time. ``loadCache()`` or a refresh brings them back.
    public func unloadIssues() {
        let dropped = contents.withLock { contents -> IssueList in
            defer { contents.issues = IssueList() }
            return contents.issues
        }
        // Freed outside the lock, on another core: 5,000 issues take 3 ms to free. Consumed, so
        // that the other core's reference is the last.
        ReleaseElsewhere.release(consume dropped)
    }

    // MARK: Loading

    /// Shows the cached copy of the catalog, if there is a good one. Reads only the disk.
    ///
    /// A cached copy that no longer decodes is set aside so that the next refresh fetches it anew.
    @discardableResult
    public func loadCache() -> Bool {
        guard !subscription.url.isFileURL else { return false }
        cache.adoptLegacyCopy(of: subscription.url)
        guard let (catalog, info) = cache.loadCatalog(of: subscription.url, secrets: URLSecrets.secrets(in: subscription.url),
                                                      limits: configuration.limits) else { return false }
        _ = apply(catalog, source: .cache, fetchedAt: info.fetchedAt)
        setStatus(.ready(source: .cache, fetchedAt: info.fetchedAt))
        return true
    }

    /// Whether the cached copy may be used without asking the server: inside its max-age, or
    /// before the time a busy server asked to be left alone until.
    private func isFresh(_ info: CatalogCache.Info) -> Bool {
        guard info.url == subscription.displayAddress else { return false }
        let now = Date()
        return (info.freshUntil.map { $0 > now } ?? false) || (info.retryNotBefore.map { $0 > now } ?? false)
    }

    /// Fetches the catalog in the background; `completion` runs on a background thread.
    ///
    /// Sends the cached copy's validators, so that an unchanged catalog costs a 304. When the
    /// network fails or the server sends a bad catalog, the cached copy stays and the status
    /// says offline; with no cached copy the status is failed. See ``RefreshOptions`` for what
    /// an unattended sync asks.
    public func refresh(
        _ options: RefreshOptions = [], completion: @escaping @Sendable (Result<RefreshSummary, NewsstandError>) -> Void = { _ in }
    ) {
        let (respectingFreshness, readingUnchanged) = (options.contains(.respectingFreshness), !options.contains(.leavingUnchangedUnread))
        let start = contents.withLock { contents -> Bool in
            contents.refreshWaiters.append(completion)
            guard !contents.refreshing else { return false }
            contents.refreshing = true
            return true
        }
        guard start else { return }
        let url = subscription.url
        if url.isFileURL {
            DispatchQueue.global().async { [self] in
                refreshFromFile(url)
            }
            return
        }
        if numberOfIssues == 0 && readingUnchanged { loadCache() }
        // Validators only for a copy that is shown, or (not reading it) one whose info is sound:
        // a copy that fails to decode is set aside by loadCache, and then has none.
        let info = cache.readInfo()
        let cached = info?.url != subscription.displayAddress || (readingUnchanged && numberOfIssues == 0) ? nil : info
        let hasIssues = numberOfIssues > 0
        if respectingFreshness, let cached, isFresh(cached) {
            finishRefresh(.success(RefreshSummary(
                changed: false, newIssues: 0, totalIssues: hasIssues ? numberOfIssues : cached.issueCount ?? 0, source: .cache,
                askedServer: false)))
            return
        }
        setStatus(.loading(hasIssues: hasIssues))
        let request: TransferRequest
        // Kept in memory, as a feed's later pages are: written to a file, the 10,000-entry page of
        // the bench cost the transfer 3 to 4 ms more (ext4's buffered writes), and a feed's file
        // was then replaced by its snapshot anyway. Room for the copy is set aside instead.
        let body = MemoryBody()
        do {
            try cache.prepare()
            var made = try fetcher.catalogRequest(url, destination: "the catalog")
            made.memoryDestination = body
            made.ifNoneMatch = cached?.etag
            made.ifModifiedSince = cached?.lastModified
            request = made
        } catch {
            failRefresh(error)
            return
        }
        configuration.engine.start(request, handlers: TransferHandlers { [self] result in
            // Decoding a large catalog takes a while: keep it off the transfer thread.
            DispatchQueue.global().async { [self] in
                catalogTransferFinished(result, body: body, cached: cached)
            }
        })
    }

    /// Fetches the catalog and waits for the answer. For command-line use, not on a UI thread.
    public func refreshAndWait(_ options: RefreshOptions = []) -> Result<RefreshSummary, NewsstandError> {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<RefreshSummary, NewsstandError>?>(nil)
        refresh(options) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0! }
    }

    /// Secrets of this subscription, to keep out of messages.
    var secrets: [String] { fetcher.secrets }

    /// How a refusal for want of credentials is worded for this subscription.
    public var advice: AuthenticationAdvice { fetcher.advice }

    /// The catalog whose first document arrived: every format, every page, one validator.
    private func readCatalog(_ document: CatalogFetcher.Document) throws(NewsstandError) -> Catalog {
        try CatalogPipeline(
            fetcher: fetcher, maximumPages: subscription.maxPages ?? configuration.maximumPages,
            maximumEntries: configuration.maximumEntries
        ).catalog(from: document)
    }

    private func refreshFromFile(_ url: URL) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.fileExists(atPath: url.path) ? "cannot be read" : "does not exist"
            let failure = NewsstandError(.catalogUnavailable, "The catalog \(TextSanitizer.inert(url.path)) \(reason): check the path.")
            setStatus(.failed(failure))
            finishRefresh(.failure(failure))
            return
        }
        do {
            let catalog = try readCatalog(CatalogFetcher.Document(data: data, url: url, contentType: nil))
            let now = Date()
            let summary = apply(catalog, source: .file, fetchedAt: now)
            setStatus(.ready(source: .file, fetchedAt: now))
            finishRefresh(.success(summary))
        } catch {
            let failure = Self.unreadable(error, at: url.path)
            setStatus(.failed(failure))
            finishRefresh(.failure(failure))
        }
    }

    /// A catalog that arrived but cannot be read, as one sentence on what is wrong and one on what
    /// to do: the fault the reader found, said of the catalog named here.
    static func unreadable(_ error: NewsstandError, at address: String) -> NewsstandError {
        guard error.code == .invalidCatalog else { return error }
        let cause = error.catalogFault?.said(of: "it") ?? error.message
        return NewsstandError(.invalidCatalog, "Cannot read the catalog \(TextSanitizer.inert(address)): \(cause) Check the address, or ask its publisher to fix it.")
    }

    private func catalogTransferFinished(_ result: TransferResult, body: MemoryBody, cached: CatalogCache.Info?) {
        let now = Date()
        let freshUntil = result.response.maxAge.map { now.addingTimeInterval($0) }
        let failure: NewsstandError
        switch fetcher.answer(to: result, body: body, conditional: cached != nil) {
        case .unchanged:
            var info = cached!
            info.authentication = knownAuthentication ?? info.authentication
            info.fetchedAt = now
            info.freshUntil = freshUntil
            info.retryNotBefore = nil
            try? cache.recordCheck(info, previous: cached!)
            contents.withLock {
                $0.fetchedAt = info.fetchedAt
                $0.source = .network
            }
            setStatus(.ready(source: .network, fetchedAt: info.fetchedAt))
            let count = numberOfIssues > 0 ? numberOfIssues : info.issueCount ?? 0
            finishRefresh(.success(RefreshSummary(changed: false, newIssues: 0, totalIssues: count, source: .network)))
            return
        case .document(let document):
            do {
                // Before the catalog is read: a disk with no room for its copy fails the refresh,
                // and the catalog shown stays the one the copy holds.
                try cache.reserve(document.data.count)
                let catalog = try readCatalog(document)
                // The URL as it may be shown: a key inside it stays off the disk.
                let info = CatalogCache.Info(
                    url: subscription.displayAddress, etag: result.response.etag, lastModified: result.response.lastModified, fetchedAt: now,
                    freshUntil: freshUntil, authentication: knownAuthentication)
                // Written on another core while the issues are made, and done before anyone
                // hears of the refresh. Not `async` and a wait: a sync of a hundred catalogs
                // would hold every pool thread waiting for work queued behind them (6 s instead
                // of 0.6); here the calling thread does both when no other is free.
                // A copy that cannot be written even so (a feed's snapshot larger than the room
                // its first page set aside) is no reason to refuse a good catalog: it is a remark.
                let summary = Locked<RefreshSummary?>(nil)
                let notKept = Locked<NewsstandError?>(nil)
                let secrets = URLSecrets.secrets(in: subscription.url)
                DispatchQueue.concurrentPerform(iterations: 2) { [cache] part in
                    ProcessMemory.adviseHugePagesForThisThread()
                    if part == 0 {
                        do throws(NewsstandError) {
                            try cache.save(catalog, original: document.data, info: info, masking: secrets)
                        } catch {
                            notKept.withLock { $0 = error }
                        }
                    } else {
                        let made = apply(catalog, source: .network, fetchedAt: info.fetchedAt)
                        summary.withLock { $0 = made }
                    }
                }
                var applied = summary.withLock { $0! }
                if let failure = notKept.withLock({ $0 }) {
                    let redacted = NewsstandError(failure.code, Redaction.redact(failure.message, secrets: self.secrets))
                    contents.withLock { $0.remarks.append(.copyNotKept(redacted)) }
                    applied.remarks.append(.copyNotKept(redacted))
                }
                setStatus(.ready(source: .network, fetchedAt: info.fetchedAt))
                finishRefresh(.success(applied))
                return
            } catch {
                failure = Self.unreadable(error, at: subscription.url.absoluteString)
            }
        case .failure(let error, let retryAfter):
            failure = error
            if let retryAfter, var info = cached {
                info.retryNotBefore = now.addingTimeInterval(retryAfter)
                try? cache.writeInfo(info)
            }
        }
        unlink(cache.downloadPath)
        failRefresh(failure)
    }

    /// What this process knows of how the catalog's origin authenticates.
    private var knownAuthentication: HTTPAuthenticator.Known? {
        RequestProfile.origin(of: subscription.url).flatMap { HTTPAuthenticator.shared.known(for: $0) }
    }

    private func failRefresh(_ error: NewsstandError) {
        let reason = NewsstandError(error.code, Redaction.redact(error.message, secrets: secrets), retryable: error.isRetryable)
        if let fetchedAt = contents.withLock({ $0.issues.isEmpty ? nil : $0.fetchedAt }) {
            setStatus(.offline(since: fetchedAt, reason: reason))
        } else {
            // No copy to fall back on: the reason and its remedy are the whole story.
            let code: NewsstandError.Code = reason.needsCredentials ? reason.code : .catalogUnavailable
            setStatus(.failed(NewsstandError(code, reason.message)))
        }
        finishRefresh(.failure(reason))
    }

    private func finishRefresh(_ result: Result<RefreshSummary, NewsstandError>) {
        let waiters = contents.withLock { contents in
            defer {
                contents.refreshWaiters.removeAll()
                contents.refreshing = false
            }
            return contents.refreshWaiters
        }
        for waiter in waiters { waiter(result) }
    }

    private func setStatus(_ status: Status) {
        let changed = contents.withLock { contents -> Bool in
            guard contents.status != status || contents.status.summary != status.summary else { return false }
            contents.status = status
            return true
        }
        if changed { center.post(name: Self.statusDidChangeNotification, object: self) }
    }

    /// Fetches the issue's cover into the library (once); see ``CoverFetcher``.
    public func fetchCover(for issue: Issue, completion: @escaping @Sendable (Result<String, NewsstandError>) -> Void) {
        CoverFetcher(requests: fetcher, library: library, engine: configuration.engine).fetch(for: issue, completion: completion)
    }
}
