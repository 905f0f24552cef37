import Foundation

/// One HTTP(S) GET whose body is streamed into a file.
public struct TransferRequest: Sendable {
    public var url: URL
    /// The file the body is written to; created if missing, never followed if it is a link.
    public var destination: String
    /// When positive, ask for the bytes from this offset on and append them to `destination`.
    public var resumeOffset: Int64 = 0
    /// The validator (ETag or Last-Modified) of the bytes already in `destination`, sent as If-Range.
    public var ifRange: String?
    /// Sent as If-None-Match.
    public var ifNoneMatch: String?
    /// Sent as If-Modified-Since.
    public var ifModifiedSince: String?
    /// The largest file accepted; a larger answer is aborted.
    public var maximumBytes: Int64?
    /// Allow `file` URLs (for a catalog the user named on this machine).
    public var allowsFileURLs = false
    /// Seconds without a byte before the transfer gives up.
    public var stallTimeout: Int = 30
    /// Seconds to wait for a connection.
    public var connectTimeout: Int = 20
    /// What the request's subscription adds to requests to its own origin (credentials, headers,
    /// query); requests elsewhere, and redirects elsewhere, go without it.
    public var profile: RequestProfile?
    /// A PEM file of certificate authorities trusted instead of the system's (verification stays on).
    public var certificateAuthorities: String?
    /// A cap on this transfer's speed, in bytes per second.
    public var maximumBytesPerSecond: Int64?
    /// What the `Accept` header names, when it should name something.
    public var accept: String?
    /// Whether a compressed answer (gzip, deflate, …) is asked for and decoded: for catalogs.
    public var acceptsCompression = false
    /// Whether the destination's SHA-256 is computed as the body is written (``TransferResult/bodyDigest``).
    var hashesBody = false
    /// Redirects followed before giving up.
    public var maximumRedirects = 5
    /// Redirects followed so far.
    var redirectCount = 0
    /// What remembers each origin's authentication scheme and Digest nonce.
    public var authenticator: HTTPAuthenticator = .shared
    /// Where a user and password come from for a host the profile gives none for.
    public var netrc: Netrc? = .current
    /// The challenge this request answers: set on the request made again after a 401.
    var answering: AuthChallenge?
    /// Send no credentials until the server asks: after a 400 to a Basic header sent unasked.
    var withholdsCredentials = false
    /// Requests made again for authentication so far.
    var authenticationRounds = 0
    /// Where the body goes instead of the file at `destination` (which then only names it in
    /// messages): memory, for a body read once and dropped.
    var memoryDestination: MemoryBody?

    public init(url: URL, destination: String) {
        self.url = url
        self.destination = destination
    }
}

/// What a server said about a response, before its body.
public struct TransferResponse: Sendable, Equatable {
    /// The HTTP status; for a `file` URL, 200.
    public var statusCode: Int = 0
    public var contentLength: Int64?
    public var contentRange: String?
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    /// Seconds the server asked us to wait (Retry-After), when given.
    public var retryAfter: TimeInterval?
    /// Seconds the server says the response stays fresh (Cache-Control max-age; 0 for no-cache
    /// or no-store), when given.
    public var maxAge: TimeInterval?
    /// The file name the server gives (Content-Disposition), decoded: shown, never a path.
    public var fileName: String?
    /// The schemes a 401 offers (WWW-Authenticate), when given.
    public var authenticate: String?
    /// The URL the response came from, after redirects.
    public var url: URL?
    /// Where a redirect points, as the server wrote it.
    public var location: String?
    /// An Authentication for OPDS document sent with a 401.
    public var authenticationDocument: AuthenticationDocument?
    /// Whether the request that got this response carried a user and password (a 401 then
    /// means they are wrong, not missing).
    public var sentCredentials = false

    public init() {}

    /// The validator to send as If-Range when resuming these bytes: a strong ETag, else Last-Modified.
    public var resumeValidator: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }
}

/// How a transfer ended.
public struct TransferResult: Sendable {
    /// The final response; `statusCode` is 0 when no response arrived.
    public var response: TransferResponse
    /// `nil` when the transfer ran to its end (whatever the status); otherwise why it stopped.
    public var failure: NewsstandError?
    /// The size of the destination file afterwards, or 0 when it was not touched.
    public var bytesOnDisk: Int64
    /// Whether the body was written to the destination (a 2xx answer).
    public var wroteBody: Bool
    /// Whether a resume was asked for but the server sent the whole file, which replaced the old bytes.
    public var restarted: Bool
    /// The destination's SHA-256 from its first byte, computed as the body was written, when
    /// the request asked for it and a body was written.
    var bodyDigest: GrowingFileDigest?

    public init(response: TransferResponse, failure: NewsstandError?, bytesOnDisk: Int64, wroteBody: Bool, restarted: Bool) {
        self.response = response
        self.failure = failure
        self.bytesOnDisk = bytesOnDisk
        self.wroteBody = wroteBody
        self.restarted = restarted
    }
}

/// The callbacks of one transfer. All run on the same engine thread and must return quickly.
public struct TransferHandlers: Sendable {
    /// Called once the final response's headers are known and before any body is written: for a
    /// 2xx answer, once the destination is open; not called for an answer the transfer refuses
    /// (too large, a range other than the one asked for), which ends in a failure.
    public var response: @Sendable (TransferResponse) -> Void
    /// Called as the body arrives, at most about every 50 ms: bytes in the file, and the full size when known.
    public var progress: @Sendable (_ bytesOnDisk: Int64, _ expectedSize: Int64?) -> Void
    /// Called once, last.
    public var completion: @Sendable (TransferResult) -> Void

    public init(
        response: @escaping @Sendable (TransferResponse) -> Void = { _ in },
        progress: @escaping @Sendable (Int64, Int64?) -> Void = { _, _ in },
        completion: @escaping @Sendable (TransferResult) -> Void
    ) {
        self.response = response
        self.progress = progress
        self.completion = completion
    }
}

/// Identifies a running transfer, to cancel it.
public struct TransferID: Hashable, Sendable {
    let rawValue: Int
}
