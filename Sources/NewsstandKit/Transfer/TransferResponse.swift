import Foundation

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
