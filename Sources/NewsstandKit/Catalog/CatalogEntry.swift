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
        var coverAddress: String?
        var downloadAddress: String
        var isFree: Bool
        var size: Int64?
        var sha256: String?
        var summary: String?

        init(id: String, title: String, releaseDate: Date?, coverAddress: String?, downloadAddress: String, isFree: Bool,
             size: Int64?, sha256: String?, summary: String?) {
            self.id = id
            self.title = title
            self.releaseDate = releaseDate
            self.coverAddress = coverAddress
            self.downloadAddress = downloadAddress
            self.isFree = isFree
            self.size = size
            self.sha256 = sha256
            self.summary = summary
        }

        func copy() -> Fields {
            Fields(id: id, title: title, releaseDate: releaseDate, coverAddress: coverAddress, downloadAddress: downloadAddress,
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
        fields = Fields(id: id, title: title, releaseDate: releaseDate, coverAddress: coverURL?.absoluteString,
                        downloadAddress: downloadURL.absoluteString, isFree: isFree, size: size, sha256: sha256, summary: summary)
    }

    /// An entry whose addresses were checked by ``URLResolver``, which hands out only what
    /// `URL(string:)` reads back unchanged.
    init(id: String, title: String, releaseDate: Date?, coverAddress: String?, downloadAddress: String,
         isFree: Bool, size: Int64?, sha256: String?, summary: String?) {
        fields = Fields(id: id, title: title, releaseDate: releaseDate, coverAddress: coverAddress,
                        downloadAddress: downloadAddress, isFree: isFree, size: size, sha256: sha256, summary: summary)
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

    /// Made from ``coverAddress`` each time: only fetching a cover needs it.
    public var coverURL: URL? {
        get { fields.coverAddress.map(Self.url) }
        set { mutableFields.coverAddress = newValue?.absoluteString }
    }

    /// Made from ``downloadAddress`` each time: only a download needs it.
    public var downloadURL: URL {
        get { Self.url(fields.downloadAddress) }
        set { mutableFields.downloadAddress = newValue.absoluteString }
    }

    /// The cover's absolute URL as text.
    public var coverAddress: String? { fields.coverAddress }

    /// The PDF's absolute URL as text.
    public var downloadAddress: String { fields.downloadAddress }

    private static func url(_ address: String) -> URL {
        // Every address is a URL's own `absoluteString` or one the resolver checked reads back.
        guard let url = URL(string: address) else { preconditionFailure("an entry holds an address URL cannot read: \(address)") }
        return url
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
        return a.id == b.id && a.title == b.title && a.releaseDate == b.releaseDate && a.coverAddress == b.coverAddress
            && a.downloadAddress == b.downloadAddress && a.isFree == b.isFree && a.size == b.size && a.sha256 == b.sha256
            && a.summary == b.summary
    }
}
