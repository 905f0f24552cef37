import Foundation

/// The one way a fetched catalog becomes a ``Catalog``, for every format: its format recognised
/// and read into raw entries, a feed's later pages fetched (up to a bound, a loop noticed), then
/// every entry checked by the one ``CatalogValidator``, each page's as soon as it is read.
struct CatalogPipeline: Sendable {
    let fetcher: CatalogFetcher
    /// Pages of a paginated feed read at most.
    let maximumPages: Int
    /// Entries of a paginated feed read at most.
    let maximumEntries: Int

    /// The catalog whose first page is `first`. A later page that fails (a dead `next`, common
    /// in old feeds) costs that page, not the pages already read: a remark says where it stopped.
    ///
    /// While a page is read, the next one is already fetched and read on another core when the
    /// page's head names it (``CatalogFormat/nextPageHint(_:url:)``, ``PageReadAhead``); the page
    /// as read has the last word.
    func catalog(from first: CatalogFetcher.Document) throws(NewsstandError) -> Catalog {
        ProcessMemory.adviseHugePagesForThisThread()
        let reader = CatalogReader(limits: fetcher.limits)
        let data = try DocumentEncoding.utf8(first.data, contentType: first.contentType)
        try reader.limits.checkSize(of: data)
        let format = try reader.format(of: data, contentType: first.contentType)
        var visited: Set<String> = [first.url.absoluteString, fetcher.subscription.url.absoluteString]
        let entriesRead = Locked(0)
        let validator = CatalogValidator(limits: reader.limits, allowFiles: fetcher.subscription.url.isFileURL)
        let readers = PageReaders()
        func context() -> PageReadAhead.Context {
            PageReadAhead.Context(fetcher: fetcher, reader: reader, validator: validator, format: format, maximumPages: maximumPages,
                                  maximumEntries: maximumEntries, entriesRead: entriesRead, visited: visited, readers: readers)
        }
        var upcoming = PageReadAhead.start(hint: format.nextPageHint(data, url: first.url), after: 1, context: context())
        defer { upcoming?.cancel() }
        let (firstPage, read) = try validator.readAndCheck(data, url: first.url, format: format, limits: reader.limits)
        // What a big page was read into is freed on another core: the next step need not wait.
        ReleaseElsewhere.release(read)
        entriesRead.withLock { $0 += firstPage.entryCount }
        var pages = [firstPage]
        var remarks: [CatalogRemark] = []
        var entries = pages[0].entryCount
        while let next = pages[pages.count - 1].next {
            guard !visited.contains(next) else {
                remarks.append(.pagesLoop(page: pages.count))
                break
            }
            guard pages.count < maximumPages, entries < maximumEntries else {
                remarks.append(.pagesCut(pages: pages.count, entries: entries, byEntries: pages.count < maximumPages))
                break
            }
            visited.insert(next)
            guard let nextURL = URL(string: next) else { break }
            let ahead: PageReadAhead
            if let guessed = upcoming, guessed.address == next {
                ahead = guessed
            } else {
                upcoming?.cancel()
                ahead = PageReadAhead(address: next, url: nextURL, number: pages.count + 1, context: context())
            }
            let (outcome, following) = ahead.take()
            upcoming = following
            switch outcome {
            case .success(let page):
                entries += page.entryCount
                pages.append(page)
            case .failure(let error):
                remarks.append(.pageUnreadable(page: pages.count + 1, reason: Redaction.redact(error.message, secrets: fetcher.secrets)))
            }
            if case .failure = outcome { break }
        }
        return validator.catalog(from: pages, remarks: remarks)
    }
}
