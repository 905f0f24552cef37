import Foundation

/// One issue as the catalog describes it.
public struct CatalogEntry: Sendable, Equatable {
    /// The publisher's ID, validated by ``IssueID/isValid(_:)``.
    public var id: String
    public var title: String
    public var releaseDate: Date?
    public var coverURL: URL?
    public var downloadURL: URL
    public var isFree: Bool
    /// The size of the PDF in bytes, when the catalog gives it.
    public var size: Int64?
    /// The SHA-256 of the PDF as 64 lowercase hex digits, when the catalog gives it.
    public var sha256: String?
    public var summary: String?

    public init(
        id: String, title: String, releaseDate: Date? = nil, coverURL: URL? = nil, downloadURL: URL,
        isFree: Bool = false, size: Int64? = nil, sha256: String? = nil, summary: String? = nil
    ) {
        self.id = id
        self.title = title
        self.releaseDate = releaseDate
        self.coverURL = coverURL
        self.downloadURL = downloadURL
        self.isFree = isFree
        self.size = size
        self.sha256 = sha256
        self.summary = summary
    }
}
