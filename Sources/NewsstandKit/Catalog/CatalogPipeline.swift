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
    func catalog(from first: CatalogFetcher.Document) throws(NewsstandError) -> Catalog {
        let reader = CatalogReader(limits: fetcher.limits)
        let data = try DocumentEncoding.utf8(first.data, contentType: first.contentType)
        try reader.limits.checkSize(of: data)
        let format = try reader.format(of: data, contentType: first.contentType)
        var pages = [try format.read(data, url: first.url, limits: reader.limits)]
        var visited: Set<String> = [first.url.absoluteString, fetcher.subscription.url.absoluteString]
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
            do {
                let page = try self.page(at: nextURL, reader: reader, firstFormat: format)
                entries += page.entries.count
                pages.append(page)
            } catch {
                remarks.append(.pageUnreadable(page: pages.count + 1, reason: Redaction.redact(error.message, secrets: fetcher.secrets)))
                break
            }
        }
        return CatalogValidator(limits: reader.limits, allowFiles: fetcher.subscription.url.isFileURL).catalog(from: pages, remarks: remarks)
    }

    /// A later page of a feed, fetched and read.
    private func page(at url: URL, reader: CatalogReader, firstFormat: any CatalogFormat) throws(NewsstandError) -> FeedPage {
        let document = try fetcher.document(at: url)
        let data = try DocumentEncoding.utf8(document.data, contentType: document.contentType)
        // A page in another format than the first is the server's mistake, but readable all the same.
        let format = (try? reader.format(of: data, contentType: document.contentType)) ?? firstFormat
        guard !(format is PropertyListFormat) else {
            throw NewsstandError(.invalidCatalog, "it is a property list, not a page of the feed.")
        }
        try reader.limits.checkSize(of: data)
        return try format.read(data, url: document.url, limits: reader.limits)
    }
}
