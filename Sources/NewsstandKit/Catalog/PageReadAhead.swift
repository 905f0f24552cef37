import Foundation

/// A later page of a paginated feed, fetched, read and checked on a thread of its own while the
/// pages before it are read; as soon as its bytes are in and its head names the page after it, that one
/// is fetched and read ahead in turn. ``CatalogPipeline`` takes the pages in order, and only while
/// each page as read names the one read ahead of it: a feed of a hundred small pages was read one
/// page at a time, on one core.
///
/// The page after is started on the transfer engine's thread, the moment this page's transfer
/// ends, not by the thread that reads it: that thread had to be woken first, and with both cores
/// reading earlier pages the wake took as long as the transfer (a third of a millisecond a page,
/// a third of the time a feed of 100 pages spent being fetched).
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
        /// The page's bytes as made ready when its transfer ended; nil for a fetch that never
        /// started, or a file on this machine.
        var arrival: Result<Arrival, NewsstandError>?
        var outcome: Result<CatalogValidator.CheckedPage, NewsstandError>?
        var successor: PageReadAhead?
        var cancelled = false
    }

    /// A page's bytes, in UTF-8 and within the size limit, and the format to read them in.
    private struct Arrival: Sendable {
        let data: Data
        let url: URL
        let format: any CatalogFormat
    }

    /// What every page of one feed is read with, and the bounds a page read ahead stays within.
    struct Context: Sendable {
        let fetcher: CatalogFetcher
        let reader: CatalogReader
        /// What each page's entries are checked by, as soon as the page is read.
        let validator: CatalogValidator
        /// The first page's format, for a later page whose own cannot be told.
        let format: any CatalogFormat
        let maximumPages: Int
        let maximumEntries: Int
        /// Entries of every page read so far, by the pipeline and ahead of it.
        let entriesRead: Locked<Int>
        /// Pages read or being read: a head naming one of them starts nothing.
        var visited: Set<String>
        /// A queue to read pages on instead of ``readers`` (tests hold reads back with it).
        var readQueue: DispatchQueue?
        /// The pipeline's threads, where pages are read.
        var readers = PageReaders()
    }

    /// Starts fetching and reading page `number` at `url`.
    init(address: String, url: URL, number: Int, context: Context) {
        self.address = address
        self.number = number
        var context = context
        context.visited.insert(address)
        self.context = context
        let state = self.state
        pending = context.fetcher.start(url, address: address) { [context] result, pending in
            let arrival = Result { () throws(NewsstandError) in try Self.arrival(context.fetcher.document(from: result, of: pending), context: context) }
            var successor: PageReadAhead?
            if case .success(let page) = arrival, !state.withLock({ $0.cancelled }) {
                successor = Self.start(hint: page.format.nextPageHint(page.data, url: page.url), after: number, context: context)
            }
            // Kept before anyone hears the page is in, even if it is given up meanwhile:
            // cancel() takes the successor once this page's read is over.
            state.withLock { state in
                state.arrival = arrival
                state.successor = successor
            }
        }
        // Threads of the pipeline's own, not the global pool: the refresh waiting for this page
        // holds one of the pool's threads (one per core), and the pages read ahead took turns on the other.
        if let readQueue = context.readQueue {
            readQueue.async { [self] in read() }
        } else {
            context.readers.submit { [self] in read() }
        }
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

    /// A document's bytes made ready to read as a page of the feed.
    private static func arrival(_ document: CatalogFetcher.Document, context: Context) throws(NewsstandError) -> Arrival {
        let data = try DocumentEncoding.utf8(document.data, contentType: document.contentType)
        // A page in another format than the first is the server's mistake, but readable all the same.
        let format = (try? context.reader.format(of: data, contentType: document.contentType)) ?? context.format
        guard !(format is PropertyListFormat) else {
            throw NewsstandError(.invalidCatalog, "it is a property list, not a page of the feed.")
        }
        try context.reader.limits.checkSize(of: data)
        return Arrival(data: data, url: document.url, format: format)
    }

    private func read() {
        let outcome: Result<CatalogValidator.CheckedPage, NewsstandError>
        // The raw entries, kept until the pipeline has heard: freeing them is not its wait.
        var raw: CatalogValidator.ReadEntries?
        do throws(NewsstandError) {
            let page = try arrived()
            let (checked, read) = try context.validator.readAndCheck(page.data, url: page.url, format: page.format, limits: context.reader.limits)
            context.entriesRead.withLock { $0 += checked.entryCount }
            outcome = .success(checked)
            raw = read
        } catch {
            outcome = .failure(error)
        }
        state.withLock { $0.outcome = outcome }
        finished.signal()
        withExtendedLifetime(raw) {}
    }

    /// The page's bytes once they are in: as made ready on the engine's thread, which has also
    /// started the page after it; else (a file, a fetch that never started) read here, and the page
    /// after started here.
    private func arrived() throws(NewsstandError) -> Arrival {
        if !pending.url.isFileURL {
            let ended = pending.outcome()
            if let arrival = state.withLock({ $0.arrival }) { return try arrival.get() }
            // A fetch that could not be started ends with why.
            guard let ended else { throw NewsstandError(.cancelled, "Cancelled.") }
            return try Self.arrival(context.fetcher.document(from: ended.get(), of: pending), context: context)
        }
        let page = try Self.arrival(context.fetcher.wait(for: pending), context: context)
        if !state.withLock({ $0.cancelled }),
           let successor = Self.start(hint: page.format.nextPageHint(page.data, url: page.url), after: number, context: context) {
            state.withLock { $0.successor = successor }
        }
        return page
    }

    /// The page once read and checked, and the page read ahead after it (the caller's now: take or cancel it).
    func take() -> (page: Result<CatalogValidator.CheckedPage, NewsstandError>, next: PageReadAhead?) {
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
