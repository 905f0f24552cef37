/// A link to another feed: a navigation entry, a subsection.
public struct FeedLink: Sendable, Equatable, Codable {
    public var title: String
    public var address: String
    /// Whether it leads to a list of issues (an acquisition feed), when the feed says.
    public var isAcquisitionFeed: Bool?
    public var summary: String?

    public init(title: String, address: String, isAcquisitionFeed: Bool? = nil, summary: String? = nil) {
        self.title = title
        self.address = address
        self.isAcquisitionFeed = isAcquisitionFeed
        self.summary = summary
    }
}

/// How a server is searched.
public enum FeedSearch: Sendable, Equatable, Codable {
    /// A URL template with `{searchTerms}` (OPDS 1, OpenSearch) or `{?query}` (OPDS 2).
    case template(String)
    /// An OpenSearch description document to fetch for its template.
    case description(String)
}
