import Foundation

/// One kind of catalog document: how to recognise it and how to read it into pages of
/// ``FeedEntry`` values, which ``FeedValidator`` then turns into the one ``Catalog`` model.
///
/// A format never fetches anything and never decides what is allowed: URLs, IDs, duplicates and
/// text are the validator's, the same for every format.
public protocol CatalogFormat: Sendable {
    /// Which format this is.
    var kind: CatalogFormatKind { get }

    /// How sure the format is that a document is one of its own, from the Content-Type the server
    /// sent (often wrong: `text/html`, `application/xml`, `application/json` for feeds) and the
    /// document's first bytes.
    func recognition(contentType: String?, sniff: DocumentSniff) -> Recognition

    /// Reads a document fetched from `url` (after redirects: relative links resolve against it).
    func read(_ data: Data, url: URL, limits: FeedLimits) throws(NewsstandError) -> FeedPage
}

/// How sure a format is that a document is its own.
public enum Recognition: Int, Comparable, Sendable {
    case no = 0
    /// The Content-Type names it, but the bytes were not looked at closely.
    case byContentType = 1
    /// The first bytes (the root element or JSON shape) say so.
    case byContent = 2
    /// Both agree.
    case certain = 3

    public static func < (lhs: Recognition, rhs: Recognition) -> Bool { lhs.rawValue < rhs.rawValue }

    /// From whether the Content-Type names the format and whether the first bytes have its shape:
    /// a type alone counts only when the bytes say nothing (an XML root of another kind wins).
    public init(typed: Bool, shaped: Bool, sniff: DocumentSniff) {
        switch (typed, shaped) {
        case (true, true): self = .certain
        case (false, true): self = .byContent
        case (true, false): self = sniff.shape == .unknown ? .byContentType : .no
        case (false, false): self = .no
        }
    }
}

/// The formats a catalog can be in, by the name shown to a person and kept in the cache.
public enum CatalogFormatKind: String, Sendable, CaseIterable, Codable {
    case propertyList = "property list"
    case opds1 = "OPDS 1.2"
    case opds2 = "OPDS 2.0"
    case atom = "Atom"
    case rss = "RSS 2.0"
    case baker = "Baker shelf.json"
}

/// What the first bytes of a document say about it, read once for every format to look at.
public struct DocumentSniff: Sendable {
    public enum Shape: Sendable, Equatable {
        case xml(root: String, namespace: String?)
        case binaryPropertyList
        case jsonArray
        case jsonObject(keys: [String])
        case unknown
    }

    public let shape: Shape

    public init(_ data: Data) {
        let head = data.prefix(8192)
        if head.starts(with: Array("bplist00".utf8)) {
            shape = .binaryPropertyList
            return
        }
        var bytes = Array(head)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let first = bytes.firstIndex(where: { !XMLText.isSpace($0) }) else {
            shape = .unknown
            return
        }
        switch bytes[first] {
        case UInt8(ascii: "["):
            shape = .jsonArray
        case UInt8(ascii: "{"):
            shape = .jsonObject(keys: Self.topLevelKeys(bytes[first...]))
        case UInt8(ascii: "<"):
            shape = Self.xmlRoot(bytes[first...]) ?? .unknown
        default:
            shape = .unknown
        }
    }

    /// The first element's local name and the namespace its prefix (or the default) is bound to
    /// in that tag; prolog, comments and `<?xml-stylesheet?>` are skipped.
    private static func xmlRoot(_ bytes: ArraySlice<UInt8>) -> Shape? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")), open + 1 < bytes.endIndex else { return nil }
            let next = bytes[open + 1]
            if next == UInt8(ascii: "?") || next == UInt8(ascii: "!") {
                // Declarations and comments: skip to the end of this one.
                let closer: [UInt8] = bytes[open...].starts(with: "<!--".utf8) ? Array("-->".utf8) : [UInt8(ascii: ">")]
                var position = open + 2
                while position + closer.count <= bytes.endIndex, !bytes[position..<position + closer.count].elementsEqual(closer) {
                    position += 1
                }
                index = position + closer.count
                continue
            }
            guard let close = bytes[open...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
            let tag = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
            let name = tag.prefix { !$0.isWhitespace && $0 != "/" }
            let colon = name.firstIndex(of: ":")
            let prefix = colon.map { String(name[..<$0]) } ?? ""
            let local = colon.map { String(name[name.index(after: $0)...]) } ?? String(name)
            let attribute = prefix.isEmpty ? "xmlns=" : "xmlns:\(prefix)="
            var namespace: String?
            if let range = tag.range(of: attribute) {
                let rest = tag[range.upperBound...]
                if let quote = rest.first, quote == "\"" || quote == "'" {
                    namespace = String(rest.dropFirst().prefix { $0 != quote })
                }
            }
            return .xml(root: local, namespace: namespace)
        }
        return nil
    }

    /// The keys of a JSON object's first level found in the first bytes (enough to tell an
    /// OPDS 2 feed's `metadata` and `publications` from anything else).
    private static func topLevelKeys(_ bytes: ArraySlice<UInt8>) -> [String] {
        var keys: [String] = []
        var depth = 0
        var index = bytes.startIndex
        var inString = false
        var stringStart = 0
        var expectingKey = false
        while index < bytes.endIndex {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 1 && expectingKey { keys.append(String(decoding: bytes[stringStart..<index], as: UTF8.self)) }
                    expectingKey = false
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""):
                    inString = true
                    stringStart = index + 1
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    expectingKey = byte == UInt8(ascii: "{") && depth == 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                case UInt8(ascii: ","):
                    expectingKey = depth == 1
                default:
                    break
                }
            }
            index += 1
        }
        return keys
    }
}

/// Bounds every format respects while reading.
public struct FeedLimits: Sendable {
    /// The largest document read, in bytes.
    public var maximumSize = 64 << 20
    /// The deepest nesting of elements (XML) or arrays and objects (JSON).
    public var maximumDepth = 64
    /// The largest cover carried inside a feed as a `data:` URI, in bytes once decoded.
    public var maximumInlineCover = 1 << 20

    public init() {}
}

/// What one fetched document says: its entries, and where to go from it.
public struct FeedPage: Sendable {
    public var title: String?
    public var entries: [FeedEntry] = []
    /// The next page (`rel="next"`), resolved.
    public var next: String?
    /// Links to other feeds: a navigation feed's sections, or a feed's own "start" and facets.
    public var navigation: [FeedLink] = []
    /// How to search the server, when the feed says.
    public var search: FeedSearch?
    /// Items that carry nothing to download (an RSS item without an enclosure, an OPDS entry
    /// without an acquisition): counted, not listed one by one.
    public var itemsWithoutDownload = 0
    /// Links left out because they are templates this client cannot fill (`{authentication_token}`).
    public var templatedLinks = 0
    /// The format that read it.
    public var format: CatalogFormatKind
    /// The URL it was read from.
    public var url: URL

    public init(format: CatalogFormatKind, url: URL) {
        self.format = format
        self.url = url
    }
}

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

/// One item of a feed as the format read it: nothing checked yet, URLs as written.
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

    public init(address: String, mediaType: String?, size: Int64? = nil, access: Access = .acquire, price: String? = nil,
                throughWebPage: Bool = false) {
        self.address = address
        self.mediaType = mediaType
        self.size = size
        self.access = access
        self.price = price
        self.throughWebPage = throughWebPage
    }
}
