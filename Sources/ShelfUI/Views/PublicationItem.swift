import Foundation
import NewsstandKit

/// What one card of the newsstand view shows: a publication, its newest cover, what is new.
public struct PublicationItem: Sendable, Equatable {
    /// Where the publication's catalog stands.
    public enum Condition: Sendable, Equatable {
        /// Its cached copy is still being read.
        case loading
        /// Fetched (or read from a local file) at this time.
        case fresh(Date?)
        case refreshing
        /// The server could not be reached; the copy shown is from `since`.
        case offline(since: Date)
        /// The server wants credentials it did not get.
        case needsCredentials
        /// The catalog cannot be shown: the reason, in one line.
        case failed(String)
    }

    /// The subscription's name.
    public var name: String
    public var title: String
    public var cover: CoverImage?
    public var issueCount: Int
    /// Arrived after the first load and not read yet.
    public var newCount = 0
    /// Downloaded and not read yet.
    public var unreadCount = 0
    public var downloadedCount = 0
    public var condition: Condition
    /// The newest issue's title, for the details pane.
    public var newestTitle: String?
    public var newestDate: Date?
    /// Set when the card is a section of a server's feed (browsing), not a subscription.
    public var folder: Folder?

    /// What a section of a feed leads to.
    public struct Folder: Sendable, Equatable {
        public enum Kind: Sendable, Equatable {
            /// More sections.
            case sections
            /// A list of issues: a feed to subscribe to.
            case issues
            /// The feed does not say.
            case unknown
            /// One issue (a search result).
            case issue
        }
        public var kind: Kind
        /// The address, secrets masked, for the details pane.
        public var address: String
        public var summary: String?

        public init(kind: Kind, address: String, summary: String? = nil) {
            self.kind = kind
            self.address = address
            self.summary = summary
        }
    }

    public init(name: String, title: String, cover: CoverImage? = nil, issueCount: Int, newCount: Int = 0, unreadCount: Int = 0,
                downloadedCount: Int = 0, condition: Condition, newestTitle: String? = nil, newestDate: Date? = nil) {
        self.name = name
        self.title = title
        self.cover = cover
        self.issueCount = issueCount
        self.newCount = newCount
        self.unreadCount = unreadCount
        self.downloadedCount = downloadedCount
        self.condition = condition
        self.newestTitle = newestTitle
        self.newestDate = newestDate
    }
}
