import Foundation

/// One issue of a published folder, as the manifest remembers it and the catalogs list it.
public struct PublishedIssue: Sendable, Equatable, Codable {
    /// The file's name in the folder.
    public var file: String
    /// Given once, never changed: the start of the file's SHA-256 when it was first published.
    public var id: String
    public var size: Int64
    /// The file's modification time when it was read, in nanoseconds since 1970: a file with the
    /// same size and time is not read again.
    public var modified: Int64
    public var sha256: String
    public var mediaType: String
    public var metadata: IssueMetadata
    /// The cover's file name in the folder (a picture beside the issue, or one made from it).
    public var cover: String?
    public var free = true
}
