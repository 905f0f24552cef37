import Foundation
import NewsstandKit

/// What one card shows: a snapshot of an issue taken for one frame.
public struct ShelfItem: Sendable, Equatable {
    public var id: String
    public var title: String
    public var releaseDate: Date?
    public var isFree: Bool
    public var size: Int64?
    public var summary: String?
    public var state: DownloadState
    public var cover: CoverImage?

    public init(id: String, title: String, releaseDate: Date? = nil, isFree: Bool = true, size: Int64? = nil,
                summary: String? = nil, state: DownloadState = .remote, cover: CoverImage? = nil) {
        self.id = id
        self.title = title
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
    }
}

/// How the shelf is ordered.
public enum SortOrder: String, CaseIterable, Sendable {
    case date, title, state

    public var next: SortOrder {
        let all = SortOrder.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }
}

/// Everything the screen shows besides the cards: built by the controller for each frame.
public struct ShelfModel: Sendable, Equatable {
    public var catalogTitle: String?
    public var status: String
    /// Whether the status is a problem (offline, stale, error), for its colour.
    public var statusIsWarning = false
    public var totalCount = 0
    public var activeDownloads = 0
    public var bytesPerSecond: Double = 0
    public var librarySize: Int64 = 0
    /// The location of the selected issue's PDF, when installed.
    public var selectedPath: String?

    public init(catalogTitle: String? = nil, status: String = "") {
        self.catalogTitle = catalogTitle
        self.status = status
    }
}
