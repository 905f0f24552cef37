import Foundation

/// Fetches single feed documents for a person looking around a server: a navigation feed's
/// sections (`newsstand browse`), a search's results (`newsstand search`). Nothing is cached
/// or subscribed; requests carry the subscription's credentials to its own origin only.
public struct FeedBrowser: Sendable {
    public let subscription: Subscription
    public var engine: TransferEngine = .shared
    public var limits = FeedLimits()
    /// How a refusal is worded: by the subscription's name, or (nil name) for a URL not subscribed to.
    public var advice: AuthenticationAdvice
    private let profileSource: RequestProfileSource
    private let scratch: String
    private let cache: CatalogCache

    public init(subscription: Subscription, directories: Directories = .fromEnvironment()) {
        self.subscription = subscription
        profileSource = RequestProfileSource(subscription: subscription)
        advice = AuthenticationAdvice(subscription: subscription)
        scratch = directories.cache
        cache = CatalogCache(directories: directories, subscriptionName: subscription.name)
    }

    /// The page at `url`, read in whatever format it is (an OpenSearch description is not a page:
    /// see ``searchTemplate(from:)``).
    public func page(at url: URL) throws(NewsstandError) -> FeedPage {
        let (data, finalURL, type) = try fetch(url)
        do {
            return try CatalogReader(limits: limits).page(data, url: finalURL, contentType: type)
        } catch {
            throw Store.unreadable(error, at: URLSecrets.redacted(finalURL))
        }
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
        let (data, finalURL, _) = try fetch(url)
        let tree: XMLTree
        do {
            tree = try XMLTree.parse(data, maximumDepth: limits.maximumDepth)
        } catch {
            throw NewsstandError(.invalidCatalog, "The server's search description is not well-formed XML.")
        }
        var best: String?
        for child in tree.children(of: tree.root) where tree.elements[child].name == "Url" {
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

    private func fetch(_ url: URL) throws(NewsstandError) -> (Data, URL, String?) {
        if url.isFileURL {
            guard subscription.url.isFileURL, let data = FileManager.default.contents(atPath: url.path) else {
                throw NewsstandError(.catalogUnavailable, "\(TextSanitizer.inert(url.path)) cannot be read.")
            }
            return (data, url, nil)
        }
        try FileOps.makeDirectory(scratch, trusted: scratch)
        // What a subscription's refreshes learned of its server: searching costs no extra challenge.
        cache.seedAuthentication(for: subscription.url)
        let path = scratch + "/browse-\(getpid())-\(UUID().uuidString).page"
        defer { unlink(path) }
        var request = TransferRequest(url: url, destination: path)
        request.profile = try profileSource.profile()
        request.certificateAuthorities = subscription.certificateAuthorities
        request.maximumBytes = Int64(limits.maximumSize)
        request.accept = CatalogReader.acceptHeader
        request.acceptsCompression = true
        let result = engine.runAndWait(request)
        let secrets = (try? profileSource.profile())??.secrets ?? URLSecrets.secrets(in: url)
        if let failure = result.failure {
            throw NewsstandError(failure.code, Redaction.redact(failure.message, secrets: secrets), retryable: failure.isRetryable)
        }
        let address = Redaction.redact(url.absoluteString, secrets: secrets + URLSecrets.secrets(in: url))
        if let failure = HTTPFailure.error(result.response, subject: .catalog(address: address), advice: advice) {
            throw NewsstandError(failure.code, Redaction.redact(failure.message, secrets: secrets))
        }
        return (FileManager.default.contents(atPath: path) ?? Data(), result.response.url ?? url, result.response.contentType)
    }
}
