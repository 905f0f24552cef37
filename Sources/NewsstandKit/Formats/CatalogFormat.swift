import Foundation

/// One kind of catalog document: how to recognise it and how to read it into pages of
/// ``FeedEntry`` values, which ``CatalogValidator`` then turns into the one ``Catalog`` model.
///
/// A format never fetches anything and never decides what is allowed: URLs, IDs, duplicates and
/// text are the validator's, the same for every format.
public protocol CatalogFormat: Sendable {
    /// Which format this is.
    var kind: CatalogFormatKind { get }

    /// How sure the format is that a document is one of its own, from the Content-Type the server
    /// sent (often wrong: `text/html`, `application/xml`, `application/json` for feeds) and the
    /// document's first bytes.
    func recognition(contentType: String?, sniff: DocumentSniff) -> Recognition

    /// Reads a document fetched from `url` (after redirects: relative links resolve against it).
    func read(_ data: Data, url: URL, limits: CatalogLimits) throws(NewsstandError) -> FeedPage

    /// A guess at the next page's address from a look at the document's head, so that it can be
    /// fetched while this page is read; nil when the format cannot tell cheaply. What ``read(_:url:limits:)``
    /// finds is what counts.
    func nextPageHint(_ data: Data, url: URL) -> String?
}

extension CatalogFormat {
    public func nextPageHint(_ data: Data, url: URL) -> String? { nil }
}

/// How sure a format is that a document is its own.
public enum Recognition: Int, Comparable, Sendable {
    case no = 0
    /// The Content-Type names it, but the bytes were not looked at closely.
    case byContentType = 1
    /// The first bytes (the root element or JSON shape) say so.
    case byContent = 2
    /// Both agree.
    case certain = 3

    public static func < (lhs: Recognition, rhs: Recognition) -> Bool { lhs.rawValue < rhs.rawValue }

    /// From whether the Content-Type names the format and whether the first bytes have its shape:
    /// a type alone counts only when the bytes say nothing (an XML root of another kind wins).
    public init(typed: Bool, shaped: Bool, sniff: DocumentSniff) {
        switch (typed, shaped) {
        case (true, true): self = .certain
        case (false, true): self = .byContent
        case (true, false): self = sniff.shape == .unknown ? .byContentType : .no
        case (false, false): self = .no
        }
    }
}
