/// An error a user can act on: what went wrong, and usually what to do about it.
///
/// Errors are compared by their code; the message carries the details. New codes can be added
/// without breaking anyone who switches on the ones they know.
public struct NewsstandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The catalog could not be parsed or has the wrong shape.
        public static let invalidCatalog = Code("invalidCatalog")
        /// Neither the network nor a cached copy could provide the catalog.
        public static let catalogUnavailable = Code("catalogUnavailable")
        /// A URL uses a scheme other than http or https.
        public static let unsupportedURL = Code("unsupportedURL")
        /// No issue with that ID in the catalog.
        public static let unknownIssue = Code("unknownIssue")
        /// The network failed; trying again later may work.
        public static let network = Code("network")
        /// The server's certificate could not be verified.
        public static let insecure = Code("insecure")
        /// The server stopped sending data.
        public static let timedOut = Code("timedOut")
        /// The server wants credentials, or refuses them.
        public static let unauthorized = Code("unauthorized")
        /// The server has locked the login for a while after failed attempts.
        public static let accountLocked = Code("accountLocked")
        /// The issue is had through a web page (a shop, a loan), not by a download.
        public static let notDownloadable = Code("notDownloadable")
        /// The server has no such file.
        public static let notFound = Code("notFound")
        /// The server answered with an error status.
        public static let httpStatus = Code("httpStatus")
        /// The server answered a range request with bytes that do not match.
        public static let rangeMismatch = Code("rangeMismatch")
        /// The server sent more than it declared or than is allowed.
        public static let tooLarge = Code("tooLarge")
        /// The disk is full.
        public static let diskFull = Code("diskFull")
        /// A file could not be read or written.
        public static let fileSystem = Code("fileSystem")
        /// The downloaded file is not what the catalog promised.
        public static let verificationFailed = Code("verificationFailed")
        /// The issue is not downloaded yet.
        public static let notDownloaded = Code("notDownloaded")
        /// The program that opens PDFs failed or is missing.
        public static let openerFailed = Code("openerFailed")
        /// The download was cancelled.
        public static let cancelled = Code("cancelled")
        /// The configuration file cannot be read or says something newsstand cannot do.
        public static let configuration = Code("configuration")
        /// The host asked (429 or 503 with Retry-After, to another request) to be left alone for
        /// longer than is worth waiting; the request was not sent.
        public static let hostPaused = Code("hostPaused")
        /// Another newsstand is doing the same job (a second `sync`).
        public static let busy = Code("busy")
        /// The libcurl on this machine is missing or refused an option newsstand needs.
        public static let libcurl = Code("libcurl")
        /// No subscription of that name.
        public static let unknownSubscription = Code("unknownSubscription")
        /// A program newsstand needs for this is not installed (pdftoppm for a PDF's cover).
        public static let missingProgram = Code("missingProgram")
    }

    public let code: Code

    /// Whether the server refused for want of credentials (missing, wrong, or a locked login):
    /// what the reader mends with `login`, not by waiting for the network.
    public var needsCredentials: Bool { code == .unauthorized || code == .accountLocked }
    /// One line for the user: what happened and what to do.
    public let message: String
    /// Whether the same request may succeed if tried again later.
    public let isRetryable: Bool
    /// For a catalog that cannot be read: what is wrong with it, without a subject, so that it
    /// can be said of "the catalog" or of a named one ("Cannot read the catalog URL: it …").
    public let catalogFault: CatalogFault?
    /// For a server that could not be reached (its name unknown, nothing answering): its
    /// `host:port`, so that a download can wait for it instead of counting retries down.
    public internal(set) var unreachableHost: String?

    /// What is wrong with a catalog, said of the catalog (`is not valid JSON`) or of a part of it
    /// (`root must be an array`).
    public struct CatalogFault: Sendable {
        public enum Subject: Sendable { case catalog, part }
        public let subject: Subject
        public let predicate: String

        /// The fault said of `name` ("The catalog", or "it" when the catalog was named before).
        public func said(of name: String) -> String {
            subject == .catalog ? name + " " + predicate : (name == "it" ? "its" : name + "'s") + " " + predicate
        }
    }

    public init(_ code: Code, _ message: String, retryable: Bool = false) {
        self.code = code
        self.message = message
        self.isRetryable = retryable
        catalogFault = nil
    }

    private init(fault: CatalogFault) {
        code = .invalidCatalog
        message = fault.said(of: "The catalog")
        isRetryable = false
        catalogFault = fault
    }

    /// A catalog that cannot be read: "The catalog " + `predicate`.
    public static func invalidCatalog(_ predicate: String) -> NewsstandError {
        NewsstandError(fault: CatalogFault(subject: .catalog, predicate: predicate))
    }

    /// A catalog that cannot be read for a part of it: "The catalog's " + `predicate`.
    public static func invalidCatalog(its predicate: String) -> NewsstandError {
        NewsstandError(fault: CatalogFault(subject: .part, predicate: predicate))
    }

    public var description: String { message }

    /// Two errors are equal when their codes are: the message is for people, and may change
    /// with a detail (a byte count, a server's words) that does not make it another failure.
    public static func == (lhs: NewsstandError, rhs: NewsstandError) -> Bool {
        lhs.code == rhs.code
    }
}
