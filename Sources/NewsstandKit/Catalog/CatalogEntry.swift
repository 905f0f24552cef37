import Foundation

/// One issue as the catalog describes it.
///
/// A value type whose fields live in one shared, copy-on-write box: entries are copied often
/// (into issues, out of them under a lock, through sorting), and copying nine fields meant seven
/// reference-count operations each time — a fifth of the time to open a 100,000-issue shelf.
public struct CatalogEntry: Sendable, Equatable {
    private final class Fields: @unchecked Sendable {
        // Mutated only through `mutableFields`, when this box is not shared.
        var id: String
        var title: String
        var releaseDate: Date?
        var coverURL: URL?
        var downloadURL: URL
        var isFree: Bool
        var size: Int64?
        var sha256: String?
        var summary: String?

        init(id: String, title: String, releaseDate: Date?, coverURL: URL?, downloadURL: URL, isFree: Bool,
             size: Int64?, sha256: String?, summary: String?) {
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

        func copy() -> Fields {
            Fields(id: id, title: title, releaseDate: releaseDate, coverURL: coverURL, downloadURL: downloadURL,
                   isFree: isFree, size: size, sha256: sha256, summary: summary)
        }
    }

    private var fields: Fields

    private var mutableFields: Fields {
        mutating get {
            if !isKnownUniquelyReferenced(&fields) { fields = fields.copy() }
            return fields
        }
    }

    public init(
        id: String, title: String, releaseDate: Date? = nil, coverURL: URL? = nil, downloadURL: URL,
        isFree: Bool = false, size: Int64? = nil, sha256: String? = nil, summary: String? = nil
    ) {
        fields = Fields(id: id, title: title, releaseDate: releaseDate, coverURL: coverURL, downloadURL: downloadURL,
                        isFree: isFree, size: size, sha256: sha256, summary: summary)
    }

    /// The publisher's ID, validated by ``IssueID/isValid(_:)``.
    public var id: String {
        get { fields.id }
        set { mutableFields.id = newValue }
    }

    public var title: String {
        get { fields.title }
        set { mutableFields.title = newValue }
    }

    public var releaseDate: Date? {
        get { fields.releaseDate }
        set { mutableFields.releaseDate = newValue }
    }

    public var coverURL: URL? {
        get { fields.coverURL }
        set { mutableFields.coverURL = newValue }
    }

    public var downloadURL: URL {
        get { fields.downloadURL }
        set { mutableFields.downloadURL = newValue }
    }

    public var isFree: Bool {
        get { fields.isFree }
        set { mutableFields.isFree = newValue }
    }

    /// The size of the PDF in bytes, when the catalog gives it.
    public var size: Int64? {
        get { fields.size }
        set { mutableFields.size = newValue }
    }

    /// The SHA-256 of the PDF as 64 lowercase hex digits, when the catalog gives it.
    public var sha256: String? {
        get { fields.sha256 }
        set { mutableFields.sha256 = newValue }
    }

    public var summary: String? {
        get { fields.summary }
        set { mutableFields.summary = newValue }
    }

    public static func == (lhs: CatalogEntry, rhs: CatalogEntry) -> Bool {
        if lhs.fields === rhs.fields { return true }
        let a = lhs.fields, b = rhs.fields
        return a.id == b.id && a.title == b.title && a.releaseDate == b.releaseDate && a.coverURL == b.coverURL
            && a.downloadURL == b.downloadURL && a.isFree == b.isFree && a.size == b.size && a.sha256 == b.sha256
            && a.summary == b.summary
    }
}
