import Foundation

/// What one fetched document says: its entries, and where to go from it.
public struct FeedPage: Sendable {
    public var title: String?
    public var entries: [FeedEntry] = []
    /// The next page (`rel="next"`), resolved.
    public var next: String?
    /// Links to other feeds: a navigation feed's sections, or a feed's own "start" and facets.
    public var navigation: [FeedLink] = []
    /// How to search the server, when the feed says.
    public var search: FeedSearch?
    /// Items that carry nothing to download (an RSS item without an enclosure, an OPDS entry
    /// without an acquisition): counted, not listed one by one.
    public var itemsWithoutDownload = 0
    /// Links left out because they are templates this client cannot fill (`{authentication_token}`).
    public var templatedLinks = 0
    /// The format that read it.
    public var format: CatalogFormatKind
    /// The URL it was read from.
    public var url: URL

    public init(format: CatalogFormatKind, url: URL) {
        self.format = format
        self.url = url
    }
}
