import Foundation

/// Single feed documents for a person looking around a server: a navigation feed's sections
/// (`newsstand browse`, the shelf's browse pages), a search's results (`newsstand search`, the
/// shelf's `/`). Nothing is cached or subscribed; the ``CatalogFetcher`` the store uses fetches
/// them, with the subscription's credentials to its own origin only.
public struct FeedBrowser: Sendable {
    public let fetcher: CatalogFetcher
    public var subscription: Subscription { fetcher.subscription }
    public var limits: CatalogLimits { fetcher.limits }

    /// `subscribed` false words a refusal for a URL given on the command line, not subscribed to.
    public init(subscription: Subscription, directories: Directories = .fromEnvironment(), engine: TransferEngine = .shared,
                subscribed: Bool = true) {
        fetcher = CatalogFetcher(subscription: subscription, directories: directories, engine: engine, subscribed: subscribed)
    }

    /// The page at `url`, read in whatever format it is (an OpenSearch description is not a page:
    /// see ``searchTemplate(from:)``).
    public func page(at url: URL) throws(NewsstandError) -> FeedPage {
        let document = try fetcher.document(at: url)
        do {
            return try CatalogReader(limits: limits).page(document.data, url: document.url, contentType: document.contentType)
        } catch {
            throw Store.unreadable(error, at: URLSecrets.redacted(document.url))
        }
    }

    /// A page and its issues, checked: what a browse screen shows.
    public struct CheckedPage: Sendable {
        public var page: FeedPage
        public var entries: [CatalogEntry]
    }

    /// The page at `url` with its issues checked.
    public func checkedPage(at url: URL) throws(NewsstandError) -> CheckedPage {
        let page = try page(at: url)
        return CheckedPage(page: page, entries: catalog(of: page).entries)
    }

    /// A page's issues, checked by the rules of every catalog (the search results, a section's
    /// issues).
    public func catalog(of page: FeedPage) -> Catalog {
        CatalogValidator(limits: limits, allowFiles: subscription.url.isFileURL).catalog(from: [page])
    }

    /// The search URL for `terms`: the feed's template filled in, or the template an OpenSearch
    /// description gives (its `Url` of an Atom or OPDS type).
    public func searchURL(_ search: FeedSearch, terms: String) throws(NewsstandError) -> URL {
        let template: String
        switch search {
        case .template(let value):
            template = value
        case .description(let address):
            guard let url = URL(string: address) else { throw NewsstandError(.unsupportedURL, "The server's search description has no usable URL.") }
            template = try searchTemplate(from: url)
        }
        return try Self.fill(template, terms: terms)
    }

    /// Fills `{searchTerms}` (and OPDS 2's `{?query}`) with the terms.
    static func fill(_ template: String, terms: String) throws(NewsstandError) -> URL {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#?/")
        let encoded = terms.addingPercentEncoding(withAllowedCharacters: allowed) ?? terms
        let filled = template.replacingOccurrences(of: "{searchTerms}", with: encoded)
            .replacingOccurrences(of: "{?query}", with: "?query=" + encoded)
        // Optional OpenSearch parameters (`{startPage?}`) are left empty.
        let cleaned = filled.replacingOccurrences(of: #"\{[A-Za-z:]+\?\}"#, with: "", options: .regularExpression)
        guard let url = URL(string: cleaned), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw NewsstandError(.unsupportedURL, "The server's search template does not make an http(s) URL.")
        }
        return url
    }

    /// Reads an OpenSearch description for the template of its Atom (OPDS) results.
    func searchTemplate(from url: URL) throws(NewsstandError) -> String {
        let document = try fetcher.document(at: url)
        let finalURL = document.url
        let tree: XMLTree
        do {
            tree = try XMLTree.parse(document.data, maximumDepth: limits.maximumDepth)
        } catch {
            throw NewsstandError(.invalidCatalog, "The server's search description is not well-formed XML.")
        }
        var best: String?
        for child in tree.children(of: tree.root) where tree.isElement(child, "Url", in: nil) {
            guard let template = tree.attribute("template", of: child) else { continue }
            let type = tree.attribute("type", of: child)?.lowercased() ?? ""
            if type.contains("atom") || type.contains("opds") || best == nil { best = template }
            if type.contains("opds-catalog") { break }
        }
        guard let best, let resolved = XMLFeed.resolve(best, against: finalURL) else {
            throw NewsstandError(.invalidCatalog, "The server's search description has no search template.")
        }
        return resolved
    }
}
