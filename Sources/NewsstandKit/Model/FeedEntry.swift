import Foundation

/// One item of a catalog as its format read it: nothing checked yet, URLs as written. Every
/// format, the property list and the cache's snapshot included, reads into this; one
/// ``CatalogValidator`` turns it into a ``CatalogEntry`` or a warning.
public struct FeedEntry: Sendable {
    public var id: String?
    public var title: String?
    public var releaseDate: Date?
    public var summary: String?
    public var authors: [String] = []
    /// Cover candidates, best first, as written (maybe relative, maybe `data:`).
    public var covers: [String] = []
    public var acquisitions: [FeedAcquisition] = []
    /// Whether the format knows the issue costs nothing.
    public var isFree: Bool?
    /// Where the entry was in its document, from 0.
    public var index: Int
    /// The local key written beside the ID by the cache's snapshot: checked, then used instead of
    /// hashing the ID again.
    public var localKey: String?
    /// Why the format could not use the item (a required field missing, a value of the wrong
    /// type): the validator skips it with this as the warning.
    public var problem: CatalogWarning.Kind?

    public init(index: Int) {
        self.index = index
    }
}

/// One way a feed offers an issue.
public struct FeedAcquisition: Sendable {
    public enum Access: Sendable, Equatable {
        /// A plain acquisition link, an enclosure.
        case acquire
        /// Free to anyone (`open-access`).
        case openAccess
        /// Bought, borrowed or subscribed to: not fetched without an account.
        case paid
        /// A sample or preview of the issue: shown as such, never downloaded as the issue.
        case sample
    }

    public var address: String
    /// The media type as written; for an indirect acquisition, the innermost one.
    public var mediaType: String?
    public var size: Int64?
    public var access: Access
    /// `12.00 EUR`, when the feed gives a price.
    public var price: String?
    /// The link leads to a web page (a shop, a library's loan form) that ends, through its
    /// indirect acquisitions, in `mediaType`: a browser or an account gets it, not a download.
    public var throughWebPage = false
    /// 64 lowercase hex digits, when the catalog gives the file's SHA-256.
    public var sha256: String?
    /// Whether `size` is only advertised (a feed's `length`) rather than promised (a property
    /// list's `Size`, held against the file).
    public var sizeIsAdvisory = true

    public init(address: String, mediaType: String?, size: Int64? = nil, access: Access = .acquire, price: String? = nil,
                throughWebPage: Bool = false, sha256: String? = nil, sizeIsAdvisory: Bool = true) {
        self.address = address
        self.mediaType = mediaType
        self.size = size
        self.access = access
        self.price = price
        self.throughWebPage = throughWebPage
        self.sha256 = sha256
        self.sizeIsAdvisory = sizeIsAdvisory
    }
}

extension FeedEntry {
    /// The entries of `pieces` in one array, moved rather than copied: a copy retains every
    /// string of every entry and the pieces then release them all, a serial 5 ms for a feed of
    /// 10,000 entries read on every core.
    static func moved(from pieces: consuming [[FeedEntry]]) -> [FeedEntry] {
        guard pieces.count > 1 else { return pieces.first ?? [] }
        let total = pieces.reduce(0) { $0 + $1.count }
        return [FeedEntry](unsafeUninitializedCapacity: total) { target, initialized in
            initialized = 0
            for index in pieces.indices {
                pieces[index].withUnsafeMutableBufferPointer { source in
                    guard let start = source.baseAddress, let destination = target.baseAddress else { return }
                    (destination + initialized).moveInitialize(from: start, count: source.count)
                    initialized += source.count
                    // What is left in the piece was moved out: entries that own nothing take its place.
                    start.initialize(repeating: FeedEntry(index: 0), count: source.count)
                }
            }
        }
    }
}
