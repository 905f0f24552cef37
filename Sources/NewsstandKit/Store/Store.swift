import Foundation

/// The newsstand's controller: loads a catalog, keeps its cached copy, and runs downloads.
///
/// A store has no user interface. It posts ``statusDidChangeNotification`` when its status
/// changes and ``issuesDidChangeNotification`` when the list of issues is replaced, with itself
/// as `object`, on the thread that made the change; observers should register with `queue: nil`
/// and return quickly. Every method may be called from any thread, and none waits on the
/// network except ``refreshAndWait()``.
public final class Store: Sendable {
    /// Posted when ``status`` changes.
    public static let statusDidChangeNotification = Notification.Name("NewsstandStoreStatusDidChange")
    /// Posted when the list of issues is replaced by a newly loaded catalog.
    public static let issuesDidChangeNotification = Notification.Name("NewsstandStoreIssuesDidChange")

    /// What a store works with.
    public struct Configuration: Sendable {
        /// The catalog: http or https, or a `file` URL the user named.
        public var catalogURL: URL
        public var directories: Directories
        public var policy = DownloadPolicy()
        public var decoder = CatalogDecoder()
        public var notificationCenter: NotificationCenter = .default
        public var engine: TransferEngine = .shared

        public init(catalogURL: URL, directories: Directories = .fromEnvironment()) {
            self.catalogURL = catalogURL
            self.directories = directories
        }
    }

    public let configuration: Configuration
    /// Where this catalog's issues are kept.
    public let library: Library
    let cache: CatalogCache
    private let downloads: DownloadQueue
    private var center: NotificationCenter { configuration.notificationCenter }

    private struct Contents: Sendable {
        var status: Status = .idle
        var title: String?
        var issues: [Issue] = []
        /// Where each ID is in `issues`.
        var positions: [String: Int] = [:]
        var warnings: [String] = []
        var fetchedAt: Date?
        var source: CatalogSource?
        var refreshing = false
        var refreshWaiters: [@Sendable (Result<RefreshSummary, NewsstandError>) -> Void] = []
    }

    private let contents = Locked(Contents())

    public init(configuration: Configuration) {
        self.configuration = configuration
        library = Library(directories: configuration.directories, catalogURL: configuration.catalogURL)
        cache = CatalogCache(directories: configuration.directories, catalogURL: configuration.catalogURL)
        downloads = DownloadQueue(engine: configuration.engine, policy: configuration.policy)
    }

    // MARK: Lookup

    public var status: Status { contents.withLock { $0.status } }
    /// The magazine or publisher, when the catalog names it.
    public var catalogTitle: String? { contents.withLock { $0.title } }
    /// One line per catalog entry skipped at the last load.
    public var warnings: [String] { contents.withLock { $0.warnings } }
    /// When the shown catalog was fetched, and from where.
    public var catalogFetchedAt: Date? { contents.withLock { $0.fetchedAt } }
    public var catalogSource: CatalogSource? { contents.withLock { $0.source } }

    public var numberOfIssues: Int { contents.withLock { $0.issues.count } }
    public func issue(at index: Int) -> Issue? {
        contents.withLock { $0.issues.indices.contains(index) ? $0.issues[index] : nil }
    }
    public func issue(withID id: String) -> Issue? {
        contents.withLock { contents in contents.positions[id].map { contents.issues[$0] } }
    }
    /// Every issue, in the catalog's order.
    public var issues: [Issue] { contents.withLock { $0.issues } }

    // MARK: Loading

    /// Shows the cached copy of the catalog, if there is a good one. Reads only the disk.
    ///
    /// A cached copy that no longer decodes is set aside so that the next refresh fetches it anew.
    @discardableResult
    public func loadCache() -> Bool {
        guard !configuration.catalogURL.isFileURL, let (data, info) = cache.read() else { return false }
        do {
            let catalog = try configuration.decoder.decode(data, baseURL: configuration.catalogURL)
            _ = apply(catalog, source: .cache, fetchedAt: info.fetchedAt)
            setStatus(.ready(source: .cache, fetchedAt: info.fetchedAt))
            return true
        } catch {
            cache.setAside()
            return false
        }
    }

    /// Fetches the catalog in the background; `completion` runs on a background thread.
    ///
    /// Sends the cached copy's validators, so that an unchanged catalog costs a 304. When the
    /// network fails or the server sends a bad catalog, the cached copy stays and the status
    /// says offline; with no cached copy the status is failed.
    public func refresh(completion: @escaping @Sendable (Result<RefreshSummary, NewsstandError>) -> Void = { _ in }) {
        let start = contents.withLock { contents -> Bool in
            contents.refreshWaiters.append(completion)
            guard !contents.refreshing else { return false }
            contents.refreshing = true
            return true
        }
        guard start else { return }
        let url = configuration.catalogURL
        if url.isFileURL {
            DispatchQueue.global().async { [self] in
                refreshFromFile(url)
            }
            return
        }
        if numberOfIssues == 0 { loadCache() }
        let hasIssues = numberOfIssues > 0
        setStatus(.loading(hasIssues: hasIssues))
        do {
            try cache.prepare()
        } catch {
            finishRefresh(.failure(error))
            return
        }
        let cached = cache.read()?.info
        var request = TransferRequest(url: url, destination: cache.downloadPath)
        if hasIssues, let cached, cached.url == url.absoluteString {
            request.ifNoneMatch = cached.etag
            request.ifModifiedSince = cached.lastModified
        }
        request.maximumBytes = Int64(configuration.decoder.maximumSize)
        request.stallTimeout = configuration.policy.stallTimeout
        configuration.engine.start(request, handlers: TransferHandlers { [self] result in
            // Decoding a large catalog takes a while: keep it off the transfer thread.
            DispatchQueue.global().async { [self] in
                catalogTransferFinished(result, cached: hasIssues ? cached : nil)
            }
        })
    }

    /// Fetches the catalog and waits for the answer. For command-line use, not on a UI thread.
    public func refreshAndWait() -> Result<RefreshSummary, NewsstandError> {
        let done = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<RefreshSummary, NewsstandError>?>(nil)
        refresh { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0! }
    }

    private func refreshFromFile(_ url: URL) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let failure = NewsstandError(.catalogUnavailable, "Cannot read the catalog \(url.path): \((error as NSError).localizedDescription).")
            setStatus(.failed(failure))
            finishRefresh(.failure(failure))
            return
        }
        do {
            let catalog = try configuration.decoder.decode(data, baseURL: url)
            let now = Date()
            let summary = apply(catalog, source: .file, fetchedAt: now)
            setStatus(.ready(source: .file, fetchedAt: now))
            finishRefresh(.success(summary))
        } catch {
            setStatus(.failed(error))
            finishRefresh(.failure(error))
        }
    }

    private func catalogTransferFinished(_ result: TransferResult, cached: CatalogCache.Info?) {
        let url = configuration.catalogURL
        let status = result.response.statusCode
        var failure = result.failure
        if failure == nil {
            switch status {
            case 304 where cached != nil:
                var info = cached!
                info.fetchedAt = Date()
                try? cache.writeInfo(info)
                contents.withLock {
                    $0.fetchedAt = info.fetchedAt
                    $0.source = .network
                }
                setStatus(.ready(source: .network, fetchedAt: info.fetchedAt))
                finishRefresh(.success(RefreshSummary(changed: false, newIssues: 0, totalIssues: numberOfIssues, source: .network)))
                return
            case 200..<300:
                let data = FileManager.default.contents(atPath: cache.downloadPath) ?? Data()
                do {
                    let catalog = try configuration.decoder.decode(data, baseURL: url)
                    let info = CatalogCache.Info(
                        url: url.absoluteString, etag: result.response.etag, lastModified: result.response.lastModified, fetchedAt: Date())
                    // Not being able to cache is no reason to refuse a good catalog.
                    try? cache.installDownload(info: info)
                    let summary = apply(catalog, source: .network, fetchedAt: info.fetchedAt)
                    setStatus(.ready(source: .network, fetchedAt: info.fetchedAt))
                    finishRefresh(.success(summary))
                    return
                } catch {
                    failure = error
                }
            case 401, 403:
                failure = NewsstandError(.unauthorized, "The catalog server refused access (HTTP \(status)); check your credentials in ~/.netrc.")
            case 404, 410:
                failure = NewsstandError(.notFound, "There is no catalog at \(TextSanitizer.inert(url.absoluteString)) (HTTP \(status)); check the URL.")
            default:
                failure = NewsstandError(.httpStatus, "The catalog server answered HTTP \(status); try again later.", retryable: true)
            }
        }
        unlink(cache.downloadPath)
        let reason = failure ?? NewsstandError(.network, "The catalog could not be fetched.")
        if let fetchedAt = contents.withLock({ $0.issues.isEmpty ? nil : $0.fetchedAt }) {
            setStatus(.offline(since: fetchedAt, reason: reason))
        } else {
            let message = reason.code == .invalidCatalog
                ? reason.message
                : "\(reason.message) No cached copy of the catalog exists yet: connect and try again."
            setStatus(.failed(NewsstandError(.catalogUnavailable, message)))
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

    /// Replaces the issue list, keeping the `Issue` objects (and their downloads) of known IDs.
    private func apply(_ catalog: Catalog, source: CatalogSource, fetchedAt: Date) -> RefreshSummary {
        let folders = library.idsWithFolders()
        let (library, center) = (library, center)
        let summary = contents.withLock { contents -> RefreshSummary in
            let previous = (issues: contents.issues, positions: contents.positions)
            let entries = catalog.entries
            // A first load of 100,000 issues makes as many objects: made on every core.
            let pieces = Pieces.map(entries.count) { range, _ -> (issues: [Issue], new: Int, changed: Bool) in
                var issues: [Issue] = []
                issues.reserveCapacity(range.count)
                var new = 0
                var changed = false
                for entry in entries[range] {
                    if let position = previous.positions[entry.id] {
                        let existing = previous.issues[position]
                        if existing.entry != entry {
                            existing.update(entry: entry)
                            changed = true
                        }
                        issues.append(existing)
                    } else {
                        issues.append(Issue(entry: entry, library: library, center: center, hasFolder: folders.contains(entry.id)))
                        new += 1
                        changed = true
                    }
                }
                return (issues, new, changed)
            }
            var issues: [Issue] = pieces.count == 1 ? pieces[0].issues : []
            if pieces.count > 1 {
                issues.reserveCapacity(entries.count)
                for piece in pieces { issues.append(contentsOf: piece.issues) }
            }
            let newIssues = pieces.reduce(0) { $0 + $1.new }
            var changed = pieces.contains { $0.changed } || previous.issues.count != entries.count || contents.title != catalog.title
            if !changed {
                changed = zip(issues, previous.issues).contains { $0 !== $1 }
            }
            contents.issues = issues
            contents.positions = catalog.positions
            contents.title = catalog.title
            contents.warnings = catalog.warnings
            contents.fetchedAt = fetchedAt
            contents.source = source
            return RefreshSummary(
                changed: changed, newIssues: previous.issues.isEmpty ? entries.count : newIssues,
                totalIssues: issues.count, source: source)
        }
        if summary.changed { center.post(name: Self.issuesDidChangeNotification, object: self) }
        return summary
    }

    private func setStatus(_ status: Status) {
        let changed = contents.withLock { contents -> Bool in
            guard contents.status != status else { return false }
            contents.status = status
            return true
        }
        if changed { center.post(name: Self.statusDidChangeNotification, object: self) }
    }

    // MARK: Covers

    /// Fetches the issue's cover into the library (once), then calls `completion` with its path,
    /// on a background thread. Covers larger than 10 MB are refused.
    public func fetchCover(for issue: Issue, completion: @escaping @Sendable (Result<String, NewsstandError>) -> Void) {
        let path = issue.coverPath
        if FileOps.regularFileSize(path) != nil {
            completion(.success(path))
            return
        }
        guard let url = issue.entry.coverURL else {
            completion(.failure(NewsstandError(.notFound, "\(issue.id) has no cover.")))
            return
        }
        do {
            try library.prepareCoversFolder()
        } catch {
            completion(.failure(error))
            return
        }
        if library.adoptLegacyCover(for: issue.id) {
            completion(.success(path))
            return
        }
        let part = path + ".part"
        var request = TransferRequest(url: url, destination: part)
        request.maximumBytes = 10 << 20
        request.allowsFileURLs = url.isFileURL && configuration.catalogURL.isFileURL
        request.stallTimeout = configuration.policy.stallTimeout
        configuration.engine.start(request, handlers: TransferHandlers { result in
            if result.failure == nil, (200..<300).contains(result.response.statusCode), rename(part, path) == 0 {
                completion(.success(path))
            } else {
                unlink(part)
                completion(.failure(result.failure ?? NewsstandError(.httpStatus, "The cover could not be fetched (HTTP \(result.response.statusCode)).")))
            }
        })
    }

    // MARK: Downloads

    /// Queues a download of the issue; returns false when it is already queued, running or installed.
    @discardableResult
    public func download(_ issue: Issue) -> Bool {
        downloads.enqueue(issue)
    }

    /// Stops the issue's download, keeping its bytes for a later resume.
    public func cancelDownload(_ issue: Issue) {
        downloads.cancel(issue)
    }

    /// The issues being downloaded or waiting for their turn.
    public var activeIssues: [Issue] { downloads.activeIssues }

    private var interruptedListPath: String { library.root + "/interrupted.json" }

    /// Stops every download, keeping its bytes, and remembers them for
    /// ``resumeInterruptedDownloads()``. Waits up to `timeout` seconds for the bytes to reach the disk.
    public func stopDownloadsForLater(waitingUpTo timeout: TimeInterval) {
        let active = activeIssues
        guard !active.isEmpty else { return }
        if let data = try? JSONEncoder().encode(active.map(\.id)), (try? FileOps.makeDirectory(library.root, trusted: library.root)) != nil {
            try? FileOps.writeAtomically(data, to: interruptedListPath)
        }
        let settled = DispatchSemaphore(value: 0)
        let observer = center.addObserver(forName: Issue.stateDidChangeNotification, object: nil, queue: nil) { _ in settled.signal() }
        defer { center.removeObserver(observer) }
        active.forEach(cancelDownload)
        let deadline = DispatchTime.now() + timeout
        while !activeIssues.isEmpty, settled.wait(timeout: deadline) == .success {}
    }

    /// Queues again the downloads that ``stopDownloadsForLater(waitingUpTo:)`` stopped, once their
    /// issues are loaded.
    public func resumeInterruptedDownloads() {
        guard numberOfIssues > 0, let data = FileManager.default.contents(atPath: interruptedListPath),
              let ids = try? JSONDecoder().decode([String].self, from: data)
        else { return }
        unlink(interruptedListPath)
        for id in ids {
            if let issue = issue(withID: id) { download(issue) }
        }
    }

    /// Removes the installed issue and any partial download; refuses while it is downloading.
    public func delete(_ issue: Issue) throws(NewsstandError) {
        if downloads.isBusy(issue) {
            throw NewsstandError(.fileSystem, "\(issue.id) is downloading: cancel it first.")
        }
        try library.delete(id: issue.id)
        issue.resetStateFromDisk()
    }
}

