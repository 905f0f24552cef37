import Foundation

/// One issue as the catalog describes it.
///
/// The fields are listed once, in ``Fields``; an entry keeps them in one shared box, replaced
/// whole when a field changes, and reads them by key path (`entry.title`). Entries are copied
/// often (into issues, out of them under a lock, through sorting), and copying the fields
/// themselves meant a reference-count operation per string — a fifth of the time to open a
/// 100,000-issue shelf.
@dynamicMemberLookup
public struct CatalogEntry: Sendable, Equatable {
    /// What the catalog says of an issue.
    public struct Fields: Sendable, Equatable {
        /// The publisher's ID, kept as data: any text, never a path.
        public var id: String
        /// The safe folder name made from ``id`` by ``LocalKey``.
        public var localKey: String
        public var title: String
        public var releaseDate: Date?
        /// The cover's absolute URL as text.
        public var coverAddress: String?
        /// What a download fetches: the acquisition the catalog prefers.
        public var acquisition: Acquisition
        /// Other forms the catalog offers, in its order (usually none: an empty array costs nothing).
        public var alternatives: [Acquisition]
        public var isFree: Bool
        public var summary: String?
        /// `12.00 EUR`, when the catalog gives a price.
        public var price: String?
        /// The authors, joined for display ("A. Writer, B. Writer").
        public var authors: String?

        public init(id: String, localKey: String? = nil, title: String, releaseDate: Date? = nil, coverAddress: String? = nil,
                    acquisition: Acquisition, alternatives: [Acquisition] = [], isFree: Bool = false, summary: String? = nil,
                    price: String? = nil, authors: String? = nil) {
            self.id = id
            self.localKey = localKey ?? LocalKey.make(for: id)
            self.title = title
            self.releaseDate = releaseDate
            self.coverAddress = coverAddress
            self.acquisition = acquisition
            self.alternatives = alternatives
            self.isFree = isFree
            self.summary = summary
            self.price = price
            self.authors = authors
        }
    }

    /// Never changed once made: a change makes a new box (checked entries rarely change: an
    /// address unmasked in a cached copy). A constant field of a final class is read one field
    /// at a time with no exclusivity check, so the snapshot no longer copies all of an entry's
    /// fields out, every string retained and released, to write them.
    @usableFromInline
    final class Box: Sendable {
        @usableFromInline let fields: Fields
        @usableFromInline init(_ fields: Fields) { self.fields = fields }
    }

    @usableFromInline var box: Box

    public init(_ fields: Fields) {
        box = Box(fields)
    }

    /// An entry with one acquisition, its media type taken from the URL (PDF when it says nothing).
    public init(id: String, title: String, releaseDate: Date? = nil, coverURL: URL? = nil, downloadURL: URL,
                isFree: Bool = false, size: Int64? = nil, sha256: String? = nil, summary: String? = nil) {
        let address = downloadURL.absoluteString
        self.init(Fields(
            id: id, title: title, releaseDate: releaseDate, coverAddress: coverURL?.absoluteString,
            acquisition: Acquisition(address: address, mediaType: MediaType(address: address) ?? .pdf, size: size, sha256: sha256),
            isFree: isFree, summary: summary))
    }

    @inlinable
    public subscript<Value>(dynamicMember path: WritableKeyPath<Fields, Value>) -> Value {
        get { box.fields[keyPath: path] }
        set {
            var fields = box.fields
            fields[keyPath: path] = newValue
            box = Box(fields)
        }
    }

    public var fields: Fields { box.fields }

    /// Every acquisition, preferred first.
    public var acquisitions: [Acquisition] { [box.fields.acquisition] + box.fields.alternatives }
    public var acquisition: Acquisition { box.fields.acquisition }
    public var mediaType: MediaType { acquisition.mediaType }
    /// The size in bytes of what a download fetches, when the catalog gives it.
    public var size: Int64? { acquisition.size }
    /// The size the download must have, when the catalog promises one.
    public var promisedSize: Int64? { acquisition.promisedSize }
    public var sha256: String? { acquisition.sha256 }
    public var downloadAddress: String { acquisition.address }
    public var downloadURL: URL { acquisition.url }
    /// Made from ``Fields/coverAddress`` each time: only fetching a cover needs it.
    public var coverURL: URL? { box.fields.coverAddress.map(Acquisition.url) }

    public static func == (lhs: CatalogEntry, rhs: CatalogEntry) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }
}

/// One way to get an issue: a URL, what it serves, and what to check it against.
public struct Acquisition: Sendable, Equatable {
    /// The absolute URL as text; a `URL` is made only when it is fetched.
    public var address: String
    public var mediaType: MediaType
    public var size: Int64?
    /// Whether `size` is only what a feed advertises (an Atom link's or an RSS enclosure's
    /// `length`, advisory by RFC 4287): shown, never held against the file. calibre, for one,
    /// rewrites an EPUB's metadata as it serves it.
    public var sizeIsAdvisory = false
    /// 64 lowercase hex digits, when the catalog gives it.
    public var sha256: String?
    /// The address is a web page (a shop, a library's loan form) that leads to the file: it takes
    /// a browser or an account, and is never downloaded as the issue.
    public var throughWebPage = false

    public init(address: String, mediaType: MediaType, size: Int64? = nil, sha256: String? = nil, sizeIsAdvisory: Bool = false,
                throughWebPage: Bool = false) {
        self.address = address
        self.mediaType = mediaType
        self.size = size
        self.sha256 = sha256
        self.sizeIsAdvisory = sizeIsAdvisory
        self.throughWebPage = throughWebPage
    }

    /// The size the file must have: a property list's promise, not a feed's advertisement.
    public var promisedSize: Int64? { sizeIsAdvisory ? nil : size }

    public var url: URL { Self.url(address) }

    static func url(_ address: String) -> URL {
        // Every address is a URL's own `absoluteString` or one the resolver checked reads back.
        guard let url = URL(string: address) else { preconditionFailure("an entry holds an address URL cannot read: \(address)") }
        return url
    }
}
