import Foundation

/// A later page of a paginated feed, fetched and read on a thread of its own while the pages
/// before it are read; as soon as its head names the page after it, that one is fetched and read
/// ahead in turn. ``CatalogPipeline`` takes the pages in order, and only while each page as read
/// names the one read ahead of it: a feed of a hundred small pages was read one page at a time,
/// on one core.
final class PageReadAhead: Sendable {
    /// The address fetched, as the page before wrote it (resolved).
    let address: String
    /// Its place in the feed: the first page is 1.
    let number: Int
    private let pending: PendingDocument
    private let context: Context
    private let finished = DispatchSemaphore(value: 0)
    private let state = Locked(State())

    private struct State {
        var outcome: Result<FeedPage, NewsstandError>?
        var successor: PageReadAhead?
        var cancelled = false
    }

    /// What every page of one feed is read with, and the bounds a page read ahead stays within.
    struct Context: Sendable {
        let fetcher: CatalogFetcher
        let reader: CatalogReader
        /// The first page's format, for a later page whose own cannot be told.
        let format: any CatalogFormat
        let maximumPages: Int
        let maximumEntries: Int
        /// Entries of every page read so far, by the pipeline and ahead of it.
        let entriesRead: Locked<Int>
        /// Pages read or being read: a head naming one of them starts nothing.
        var visited: Set<String>
    }

    /// Starts fetching and reading page `number` at `url`.
    init(address: String, url: URL, number: Int, context: Context) {
        self.address = address
        self.number = number
        var context = context
        context.visited.insert(address)
        self.context = context
        pending = context.fetcher.start(url, address: address)
        // A queue of its own, not the global pool: the refresh waiting for this page holds one
        // of the pool's threads (one per core), and the pages read ahead took turns on the other.
        DispatchQueue(label: "newsstand.page-read-ahead").async { [self] in read() }
    }

    /// The page a head names, read ahead when the pipeline would read it next: not a page read
    /// or being read, within the bounds (a page whose entries reach the bound costs a request or
    /// two more), and not a file on this machine (cheap to read when it comes).
    static func start(hint: String?, after number: Int, context: Context) -> PageReadAhead? {
        guard let hint, !context.visited.contains(hint), number < context.maximumPages,
              context.entriesRead.withLock({ $0 }) < context.maximumEntries,
              let url = URL(string: hint), !url.isFileURL else { return nil }
        return PageReadAhead(address: hint, url: url, number: number + 1, context: context)
    }

    private func read() {
        let outcome: Result<FeedPage, NewsstandError>
        do throws(NewsstandError) {
            let document = try context.fetcher.wait(for: pending)
            let data = try DocumentEncoding.utf8(document.data, contentType: document.contentType)
            // A page in another format than the first is the server's mistake, but readable all the same.
            let format = (try? context.reader.format(of: data, contentType: document.contentType)) ?? context.format
            guard !(format is PropertyListFormat) else {
                throw NewsstandError(.invalidCatalog, "it is a property list, not a page of the feed.")
            }
            try context.reader.limits.checkSize(of: data)
            if !state.withLock({ $0.cancelled }),
               let successor = Self.start(hint: format.nextPageHint(data, url: document.url), after: number, context: context) {
                // Kept even if this page is given up meanwhile: cancel() takes it once this read is over.
                state.withLock { $0.successor = successor }
            }
            let page = try format.read(data, url: document.url, limits: context.reader.limits)
            context.entriesRead.withLock { $0 += page.entries.count }
            outcome = .success(page)
        } catch {
            outcome = .failure(error)
        }
        state.withLock { $0.outcome = outcome }
        finished.signal()
    }

    /// The page once read, and the page read ahead after it (the caller's now: take or cancel it).
    func take() -> (page: Result<FeedPage, NewsstandError>, next: PageReadAhead?) {
        finished.wait()
        finished.signal()
        return state.withLock { state in
            defer { state.successor = nil }
            return (state.outcome ?? .failure(NewsstandError(.cancelled, "Cancelled.")), state.successor)
        }
    }

    /// Gives up this page and every page read ahead after it; returns once none of them reads or
    /// has a file left on disk.
    func cancel() {
        state.withLock { $0.cancelled = true }
        context.fetcher.stop(pending)
        finished.wait()
        finished.signal()
        let successor = state.withLock { state in
            defer { state.successor = nil }
            return state.successor
        }
        successor?.cancel()
    }
}
