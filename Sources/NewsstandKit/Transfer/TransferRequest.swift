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
