import Foundation

/// Fetches the documents of one subscription's catalog: the store's refresh (its first page with
/// the cache's validators, then every later page) and a person browsing or searching its server
/// alike. Requests carry the subscription's credentials, headers and query to its own origin
/// only; an answer that is not the document becomes the error ``HTTPFailure`` words, its secrets
/// redacted.
public final class CatalogFetcher: Sendable {
    public let subscription: Subscription
    public let engine: TransferEngine
    public let limits: CatalogLimits
    let profileSource: RequestProfileSource
    /// Seconds without a byte before a request gives up.
    let stallTimeout: Int
    /// How a refusal for want of credentials is worded: by the subscription's name, or for a URL
    /// given on the command line and not subscribed to.
    public let advice: AuthenticationAdvice
    private let cache: CatalogCache
    private let seeded = Locked(false)

    /// One document as it arrived.
    public struct Document: Sendable {
        public var data: Data
        /// Where it came from after redirects: relative links resolve against it.
        public var url: URL
        public var contentType: String?
    }

    public init(subscription: Subscription, directories: Directories, engine: TransferEngine = .shared, limits: CatalogLimits = CatalogLimits(),
                profileSource: RequestProfileSource? = nil, stallTimeout: Int = 30, subscribed: Bool = true) {
        self.subscription = subscription
        self.engine = engine
        self.limits = limits
        self.profileSource = profileSource ?? RequestProfileSource(subscription: subscription)
        self.stallTimeout = stallTimeout
        var advice = AuthenticationAdvice(subscription: subscription)
        if !subscribed { advice.subscriptionName = nil }
        self.advice = advice
        cache = CatalogCache(directories: directories, subscriptionName: subscription.name)
    }

    /// Secrets of this subscription, to keep out of messages.
    var secrets: [String] { (try? profileSource.profile())??.secrets ?? URLSecrets.secrets(in: subscription.url) }

    /// A request for a URL of this publication: its credentials, headers and query (for its own
    /// origin only), its certificate authorities, speed cap and time-out.
    func request(_ url: URL, destination: String) throws(NewsstandError) -> TransferRequest {
        // What earlier processes learned of the origin: the first request answers its challenge.
        if seeded.withLock({ seeded in defer { seeded = true }; return !seeded }) { cache.seedAuthentication(for: subscription.url) }
        var request = TransferRequest(url: url, destination: destination)
        request.profile = try profileSource.profile()
        request.certificateAuthorities = subscription.certificateAuthorities
        request.maximumBytesPerSecond = subscription.limitRate
        request.stallTimeout = stallTimeout
        request.allowsFileURLs = url.isFileURL && subscription.url.isFileURL
        return request
    }

    /// A request for a catalog document: the formats we read named in `Accept`, compression
    /// accepted, the size capped, never slowed by the subscription's speed cap.
    func catalogRequest(_ url: URL, destination: String) throws(NewsstandError) -> TransferRequest {
        var request = try request(url, destination: destination)
        request.maximumBytes = Int64(limits.maximumSize)
        request.maximumBytesPerSecond = nil
        request.accept = CatalogReader.acceptHeader
        request.acceptsCompression = true
        return request
    }

    /// The document at `url`, fetched and waited for (not on a UI thread).
    public func document(at url: URL) throws(NewsstandError) -> Document {
        try wait(for: start(url, address: url.absoluteString))
    }

    /// Starts fetching the document at `url` (`address` as the feed wrote it) and returns at
    /// once: a feed's next page is fetched while this one is read.
    ///
    /// `arrived`, when given, hears of the transfer's end on the engine's thread, before anyone
    /// waiting for the document does (``PageReadAhead`` starts the page after it there). It is
    /// not called for a file, nor for a fetch that could not be started.
    func start(_ url: URL, address: String, arrived: (@Sendable (TransferResult, PendingDocument) -> Void)? = nil) -> PendingDocument {
        guard !url.isFileURL else { return PendingDocument(address: address, url: url, body: nil) }
        let body = MemoryBody()
        let pending = PendingDocument(address: address, url: url, body: body)
        do {
            var request = try catalogRequest(url, destination: "a page of the feed")
            request.memoryDestination = body
            pending.transfer = engine.start(request, handlers: TransferHandlers { result in
                arrived?(result, pending)
                pending.end(.success(result))
            })
        } catch {
            pending.end(.failure(error))
        }
        return pending
    }

    /// Stops a fetch that was started: whoever waits for it (``wait(for:)``, which removes the
    /// file) hears of the cancellation as soon as the transfer has ended.
    func stop(_ pending: PendingDocument) {
        if let transfer = pending.transfer { engine.cancel(transfer) }
    }

    /// The document whose fetch was started, once it has arrived.
    func wait(for pending: PendingDocument) throws(NewsstandError) -> Document {
        let url = pending.url
        if url.isFileURL {
            guard subscription.url.isFileURL, let data = FileManager.default.contents(atPath: url.path) else {
                throw NewsstandError(.catalogUnavailable, "\(TextSanitizer.inert(url.path)) cannot be read.")
            }
            return Document(data: data, url: url, contentType: nil)
        }
        guard let outcome = pending.outcome() else { throw NewsstandError(.cancelled, "Cancelled.") }
        return try document(from: outcome.get(), of: pending)
    }

    /// The document a fetch of `pending` ended with, or the error its answer means.
    func document(from result: TransferResult, of pending: PendingDocument) throws(NewsstandError) -> Document {
        let url = pending.url
        // Worked out only for a failure to word: parsing the page's URL for them was a tenth of
        // the time a page of a 100-page feed spent outside its reading.
        func secrets() -> [String] { self.secrets + URLSecrets.secrets(in: url) }
        if let failure = result.failure {
            throw NewsstandError(failure.code, Redaction.redact(failure.message, secrets: secrets()), retryable: failure.isRetryable)
        }
        // HTTPFailure has nothing to say of a 2xx answer.
        if !(200..<300).contains(result.response.statusCode) {
            let secrets = secrets()
            let address = Redaction.redact(url.absoluteString, secrets: secrets)
            if let failure = HTTPFailure.error(result.response, subject: .catalog(address: address), advice: advice) {
                throw NewsstandError(failure.code, Redaction.redact(failure.message, secrets: secrets))
            }
        }
        return Document(data: pending.body?.contents() ?? Data(), url: result.response.url ?? url, contentType: result.response.contentType)
    }

    /// What a catalog request's answer means.
    enum Answer {
        /// 304: the copy with these validators is still the catalog.
        case unchanged
        /// The document, as it arrived.
        case document(Document)
        /// The catalog could not be had; `retryAfter` when the server asked to be left alone.
        case failure(NewsstandError, retryAfter: TimeInterval?)
    }

    /// The answer to a catalog request whose body was kept in `body`; `conditional` when it
    /// carried a copy's validators (only then is a 304 an answer).
    func answer(to result: TransferResult, body: MemoryBody, conditional: Bool) -> Answer {
        if let failure = result.failure {
            // Its host asked another request for a pause: this subscription keeps it too.
            return .failure(failure, retryAfter: failure.code == .hostPaused ? result.response.retryAfter : nil)
        }
        let response = result.response
        switch response.statusCode {
        case 304 where conditional:
            return .unchanged
        case 200..<300:
            return .document(Document(data: body.contents(), url: response.url ?? subscription.url,
                                      contentType: response.contentType))
        case let status:
            let failure = HTTPFailure.error(response, subject: .catalog(address: subscription.url.absoluteString), advice: advice)
                ?? NewsstandError(.httpStatus, "The server answered HTTP \(status) instead of the catalog.")
            let busy = status == 429 || status == 503
            return .failure(failure, retryAfter: busy ? response.retryAfter.map { min($0, 24 * 3600) } : nil)
        }
    }
}
