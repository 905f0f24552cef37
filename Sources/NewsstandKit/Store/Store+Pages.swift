import Foundation

extension Store {
    /// Reads a fetched catalog in whatever format it is, following a feed's `next` pages up to
    /// ``Configuration/maximumPages`` (a loop is noticed and stopped), and checks every entry.
    ///
    /// Runs on a background thread: later pages are fetched one after another, each with this
    /// publication's credentials only if it is on the catalog's own origin.
    func readCatalog(_ data: Data, url: URL, contentType: String?) throws(NewsstandError) -> Catalog {
        let data = try DocumentEncoding.utf8(data, contentType: contentType)
        let reader = configuration.reader
        let format = try reader.format(of: data, contentType: contentType)
        if let propertyList = format as? PropertyListFormat { return try propertyList.catalog(data, url: url) }
        var pages = [try format.read(data, url: url, limits: reader.limits)]
        var visited: Set<String> = [url.absoluteString, subscription.url.absoluteString]
        var remarks: [String] = []
        var entries = pages[0].entries.count
        while let next = pages[pages.count - 1].next {
            guard !visited.contains(next) else {
                remarks.append("The feed's page \(pages.count) links back to an earlier page; stopped there.")
                break
            }
            let maximumPages = subscription.maxPages ?? configuration.maximumPages
            guard pages.count < maximumPages, entries < configuration.maximumEntries else {
                let bound = pages.count < maximumPages ? "the most entries one refresh reads" : "its max_pages"
                remarks.append("Read the first \(pages.count) pages (\(entries == 1 ? "1 entry" : "\(entries) entries")) of the feed, \(bound).")
                break
            }
            visited.insert(next)
            guard let nextURL = URL(string: next) else { break }
            // A later page that fails (a dead `next`, common in old feeds) costs that page, not the
            // pages already read: they are the catalog, and a remark says where it stopped.
            do {
                let page = try readPage(pages.count + 1, at: nextURL, reader: reader, firstFormat: format)
                entries += page.entries.count
                pages.append(page)
            } catch {
                remarks.append("Page \(pages.count + 1) of the feed could not be read (\(Redaction.redact(error.message, secrets: secrets)))"
                    + " \(pages.count == 1 ? "the first page is" : "the first \(pages.count) pages are") shown.")
                break
            }
        }
        return FeedValidator(limits: reader.limits, allowFiles: subscription.url.isFileURL).catalog(from: pages, remarks: remarks)
    }

    /// Page `number` of a feed, fetched and read.
    private func readPage(_ number: Int, at url: URL, reader: CatalogReader, firstFormat: any CatalogFormat) throws(NewsstandError) -> FeedPage {
        let (fetched, finalURL, pageType) = try fetchPage(url)
        let pageData = try DocumentEncoding.utf8(fetched, contentType: pageType)
        // A page in another format than the first is the server's mistake, but readable all the same.
        let pageFormat = (try? reader.format(of: pageData, contentType: pageType)) ?? firstFormat
        guard !(pageFormat is PropertyListFormat) else {
            throw NewsstandError(.invalidCatalog, "it is a property list, not a page of the feed.")
        }
        return try pageFormat.read(pageData, url: finalURL, limits: reader.limits)
    }

    /// One more page of a feed: its bytes, the URL it came from after redirects, and its type.
    private func fetchPage(_ url: URL) throws(NewsstandError) -> (Data, URL, String?) {
        if url.isFileURL {
            guard subscription.url.isFileURL, let data = FileManager.default.contents(atPath: url.path) else {
                throw NewsstandError(.catalogUnavailable, "The feed's next page \(TextSanitizer.inert(url.path)) cannot be read.")
            }
            return (data, url, nil)
        }
        let path = cache.downloadPath + ".page"
        var request = try makeRequest(url, destination: path)
        request.maximumBytes = Int64(configuration.feedLimits.maximumSize)
        request.maximumBytesPerSecond = nil
        request.accept = CatalogReader.acceptHeader
        request.acceptsCompression = true
        unlink(path)
        defer { unlink(path) }
        let result = configuration.engine.runAndWait(request)
        if let failure = result.failure { throw failure }
        let address = Redaction.redact(url.absoluteString, secrets: secrets)
        if let failure = HTTPFailure.error(result.response, subject: .catalog(address: address), advice: advice) {
            throw failure
        }
        return (FileManager.default.contents(atPath: path) ?? Data(), result.response.url ?? url, result.response.contentType)
    }

    /// How a refusal for want of credentials is worded for this subscription.
    public var advice: AuthenticationAdvice { AuthenticationAdvice(subscription: subscription) }
}
