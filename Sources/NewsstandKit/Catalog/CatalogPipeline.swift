import Foundation

/// The one way a fetched catalog becomes a ``Catalog``, for every format: its format recognised
/// and read into raw entries, a feed's later pages fetched (up to a bound, a loop noticed), then
/// every entry checked by the one ``CatalogValidator``.
struct CatalogPipeline: Sendable {
    let fetcher: CatalogFetcher
    /// Pages of a paginated feed read at most.
    let maximumPages: Int
    /// Entries of a paginated feed read at most.
    let maximumEntries: Int

    /// The catalog whose first page is `first`. A later page that fails (a dead `next`, common
    /// in old feeds) costs that page, not the pages already read: a remark says where it stopped.
    ///
    /// While a page is read, the next one is already being fetched when the page's head names it
    /// (``CatalogFormat/nextPageHint(_:url:)``); the page as read has the last word.
    func catalog(from first: CatalogFetcher.Document) throws(NewsstandError) -> Catalog {
        let reader = CatalogReader(limits: fetcher.limits)
        let data = try DocumentEncoding.utf8(first.data, contentType: first.contentType)
        try reader.limits.checkSize(of: data)
        let format = try reader.format(of: data, contentType: first.contentType)
        var visited: Set<String> = [first.url.absoluteString, fetcher.subscription.url.absoluteString]
        var upcoming = prefetch(format.nextPageHint(data, url: first.url), visited: visited, pagesRead: 1, entriesRead: 0)
        defer { if let upcoming { fetcher.cancel(upcoming) } }
        var pages = [try format.read(data, url: first.url, limits: reader.limits)]
        var remarks: [CatalogRemark] = []
        var entries = pages[0].entries.count
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
            let pending: PendingDocument
            if let guessed = upcoming, guessed.address == next {
                pending = guessed
            } else {
                if let upcoming { fetcher.cancel(upcoming) }
                pending = fetcher.start(nextURL, address: next)
            }
            upcoming = nil
            do throws(NewsstandError) {
                let document = try fetcher.wait(for: pending)
                let data = try DocumentEncoding.utf8(document.data, contentType: document.contentType)
                // A page in another format than the first is the server's mistake, but readable all the same.
                let pageFormat = (try? reader.format(of: data, contentType: document.contentType)) ?? format
                guard !(pageFormat is PropertyListFormat) else {
                    throw NewsstandError(.invalidCatalog, "it is a property list, not a page of the feed.")
                }
                try reader.limits.checkSize(of: data)
                upcoming = prefetch(pageFormat.nextPageHint(data, url: document.url), visited: visited, pagesRead: pages.count + 1, entriesRead: entries)
                let page = try pageFormat.read(data, url: document.url, limits: reader.limits)
                entries += page.entries.count
                pages.append(page)
            } catch {
                remarks.append(.pageUnreadable(page: pages.count + 1, reason: Redaction.redact(error.message, secrets: fetcher.secrets)))
                break
            }
        }
        let catalog = CatalogValidator(limits: reader.limits, allowFiles: fetcher.subscription.url.isFileURL).catalog(from: pages, remarks: remarks)
        ReleaseElsewhere.release(pages)
        return catalog
    }

    /// The fetch of the page a head names, started when the loop above would fetch it: not a
    /// page already read, and within the bounds (a page whose entries reach the bound costs one
    /// request more).
    private func prefetch(_ hint: String?, visited: Set<String>, pagesRead: Int, entriesRead: Int) -> PendingDocument? {
        guard let hint, !visited.contains(hint), pagesRead < maximumPages, entriesRead < maximumEntries,
              let url = URL(string: hint), !url.isFileURL else { return nil }
        return fetcher.start(url, address: hint)
    }
}
