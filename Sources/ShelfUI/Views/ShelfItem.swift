import Foundation
import NewsstandKit

/// What one card shows: a snapshot of an issue taken for one frame.
public struct ShelfItem: Sendable, Equatable {
    public var id: String
    public var title: String
    /// The title as the card shows it: without the publication's name in front, which feeds
    /// repeat on every issue ("Red Planet Weekly #6: Rovers"), so that the part that differs fits.
    public var cardTitle: String
    public var releaseDate: Date?
    public var isFree: Bool
    public var size: Int64?
    public var summary: String?
    public var state: DownloadState
    public var cover: CoverImage?
    /// The subscription's name: a card without a cover takes its publication's colour.
    public var subscription = ""
    /// The publication's title, shown where issues of several publications mix (the New view).
    public var publication: String?
    /// Arrived after the subscription's first load and not read yet.
    public var isNew = false
    public var isRead = false
    /// Kept from the storage budget.
    public var isPinned = false
    public var firstSeen: Date?
    public var openedAt: Date?
    /// Bytes of the installed file; measured for the selected card only.
    public var sizeOnDisk: Int64?
    /// "PDF", "EPUB", …: the installed file's type, else what the catalog offers.
    public var mediaType: String?
    /// `4.50 EUR`, when the catalog gives a price.
    public var price: String?
    public var authors: String?
    /// The name the server gave the installed file; read for the selected card only.
    public var serverFileName: String?

    public init(id: String, title: String, releaseDate: Date? = nil, isFree: Bool = true, size: Int64? = nil,
                summary: String? = nil, state: DownloadState = .remote, cover: CoverImage? = nil) {
        self.id = id
        self.title = title
        cardTitle = title
        self.releaseDate = releaseDate
        self.isFree = isFree
        self.size = size
        self.summary = summary
        self.state = state
        self.cover = cover
    }

    public init(issue: Issue, cover: CoverImage?) {
        let entry = issue.entry
        self.init(id: issue.localKey, title: entry.title, releaseDate: entry.releaseDate, isFree: entry.isFree, size: entry.size,
                  summary: entry.summary, state: issue.state, cover: cover)
        subscription = issue.subscription
        price = entry.price
        authors = entry.authors
        if let reading = issue.reading {
            isNew = reading.isNew
            isRead = reading.isRead
            isPinned = reading.pinned
            firstSeen = reading.firstSeen
            openedAt = reading.openedAt
        }
        if case .downloaded = state {
            mediaType = issue.installedType.name
        } else {
            mediaType = entry.acquisition.mediaType.name
        }
    }

    /// `title` without `publication`'s name in front (and the separator after it), when
    /// something is left; the whole title otherwise.
    public static func titleWithout(publication: String, _ title: String) -> String {
        let name = publication.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, let range = title.range(of: name, options: [.anchored, .caseInsensitive, .diacriticInsensitive]) else {
            return title
        }
        let rest = title[range.upperBound...]
        // The name must be followed by a separator: "Red Planet" is not the start of "Red
        // Planetary", nor "Slow 0" of "Slow 0.1".
        let separators = CharacterSet(charactersIn: ":–—-·|,/").union(.whitespaces)
        guard let next = rest.first, next.unicodeScalars.allSatisfy(separators.contains) else { return title }
        let kept = rest.drop { $0.unicodeScalars.allSatisfy(separators.contains) }
        return kept.isEmpty ? title : String(kept)
    }

    /// Downloaded and not read yet.
    public var isUnread: Bool {
        if case .downloaded = state { return !isRead }
        return false
    }
}
