import Foundation

/// The property-list catalog (XML or binary): `ID`, `Title`, `Release date`, `Cover URL`,
/// `Download URL`, `Free`, the optional keys newsstand added, and those of the cache's snapshot
/// (`Local key`, `Advertised size`, `Web page`, `Alternatives`).
///
/// The root is either an array of issue dictionaries or a dictionary with an `Issues` array and
/// an optional `Title`. The format reads each item's fields and their types; a missing or
/// mistyped field is the item's ``FeedEntry/problem``, and ``CatalogValidator`` decides the rest
/// as it does for every format. A binary list is read an issue at a time, straight from its
/// object table and on every core.
public struct PropertyListFormat: CatalogFormat {
    public init() {}

    public var kind: CatalogFormatKind { .propertyList }

    public func recognition(contentType: String?, sniff: DocumentSniff) -> Recognition {
        switch sniff.shape {
        case .binaryPropertyList:
            return .certain
        case .xml(let root, _) where root == "plist":
            return .certain
        case .xml(let root, _) where root == "array" || root == "dict":
            // Apple's parser takes a property list without its <plist> wrapper, and so do we.
            return .byContent
        case .unknown:
            return contentType.map { $0.lowercased().contains("plist") } == true ? .byContentType : .no
        default:
            return .no
        }
    }

    public func read(_ data: Data, url: URL, limits: CatalogLimits) throws(NewsstandError) -> FeedPage {
        try limits.checkSize(of: data)
        var page = FeedPage(format: .propertyList, url: url)
        do {
            if data.starts(with: Array("bplist00".utf8)) {
                (page.title, page.entries) = try Self.readBinary(data, maximumDepth: limits.maximumDepth)
            } else {
                let start = data.prefix(64).drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
                guard start.first == UInt8(ascii: "<") else {
                    throw NewsstandError.invalidCatalog("is not a property list (neither XML nor binary).")
                }
                let shape = try XMLPropertyListParser.parseCatalog(data, maximumDepth: limits.maximumDepth) { fields, index in
                    fields.map { Self.entry(from: $0, index: index) } ?? Self.notAnEntry(index)
                }
                switch shape {
                case .issues(let title, let items):
                    page.title = title
                    page.entries = items
                case .missingIssues:
                    throw Self.missingIssues
                case .notACatalog:
                    throw Self.notACatalog
                }
            }
        } catch let error as PropertyListError {
            throw Self.failure(error, data: data)
        } catch let error as NewsstandError {
            throw error
        } catch {
            throw NewsstandError.invalidCatalog("is not a valid property list.")
        }
        return page
    }

    private static func readBinary(_ data: Data, maximumDepth: Int) throws -> (String?, [FeedEntry]) {
        let read = try readBinary(data, maximumDepth: maximumDepth) { fields, index in
            fields.map { entry(from: $0, index: index) } ?? notAnEntry(index)
        }
        return (read.title, read.items)
    }

    /// A binary list's title, the `Snapshot` version of its root (the cache's), and each issue
    /// made by `item` from its fields (nil: not a dictionary) and its place, read in pieces on
    /// every core.
    /// With `snapshot`, a list whose root says another version (or none) is not read further:
    /// its items come back empty.
    static func readBinary<Item: Sendable>(
        _ data: Data, maximumDepth: Int, snapshot: Int64? = nil, item: @escaping @Sendable (PropertyListFields?, Int) -> Item
    ) throws -> (title: String?, snapshotVersion: Int64?, items: [Item]) {
        try BinaryPropertyListParser.withDocument(data, maximumDepth: maximumDepth) { parser, top throws(PropertyListError) in
            var title: String?
            var version: Int64?
            let items: [Int]
            var itemDepth = 1
            switch try parser.children(top, depth: 0) {
            case .array(let references)?:
                items = references
            case .dictionary(let pairs)?:
                // As in any dictionary, a repeated key keeps its last value.
                guard let issues = pairs.last(where: { $0.key == "Issues" }),
                      case .array(let references)? = try parser.children(issues.value, depth: 1) else {
                    throw PropertyListError(kind: .missingIssues)
                }
                items = references
                itemDepth = 2
                if let entry = pairs.last(where: { $0.key == "Title" }), case .string(let string) = try parser.value(entry.value, depth: 1) {
                    title = string
                }
                if let entry = pairs.last(where: { $0.key == "Snapshot" }), case .integer(let number) = try parser.value(entry.value, depth: 1) {
                    version = number
                }
            case nil:
                throw PropertyListError(kind: .notACatalog)
            }
            if let snapshot, version != snapshot { return (title, version, []) }
            let readers = parser.split(into: Pieces.count(for: items.count))
            let depth = itemDepth
            return (title, version, try inPieces(items.count) { range, piece throws(PropertyListError) in
                var reader = readers[piece]
                var made: [Item] = []
                made.reserveCapacity(range.count)
                // Keys are matched as bytes, and only the values of known keys are read.
                var slots = [Int](repeating: -1, count: PropertyListKey.allCases.count)
                for index in range {
                    for slot in slots.indices { slots[slot] = -1 }
                    guard try reader.references(in: items[index], depth: depth, slot: { PropertyListKey(utf8: $0)?.rawValue }, into: &slots) else {
                        made.append(item(nil, index))
                        continue
                    }
                    var fields = PropertyListFields()
                    for key in PropertyListKey.allCases where slots[key.rawValue] >= 0 {
                        fields.set(key, try reader.value(slots[key.rawValue], depth: depth + 1))
                    }
                    made.append(item(fields, index))
                }
                return made
            })
        }
    }

    private static let missingIssues = NewsstandError.invalidCatalog(its: "root dictionary has no `Issues` array.")
    private static let notACatalog = NewsstandError.invalidCatalog(its: "root must be an array of issues or a dictionary with `Issues`.")

    /// The results of `body` for each piece of `0..<count`, joined in order.
    private static func inPieces<Element: Sendable>(
        _ count: Int, _ body: @Sendable (Range<Int>, Int) throws(PropertyListError) -> [Element]
    ) throws(PropertyListError) -> [Element] {
        let pieces = try Pieces.map(count, body)
        if pieces.count == 1 { return pieces[0] }
        var all: [Element] = []
        all.reserveCapacity(count)
        for piece in pieces { all.append(contentsOf: piece) }
        return all
    }

    private static func notAnEntry(_ index: Int) -> FeedEntry {
        var entry = FeedEntry(index: index)
        entry.problem = .notAnEntry
        return entry
    }

    /// One issue's fields read by their types; the first that does not fit is the entry's problem.
    private static func entry(from fields: PropertyListFields, index: Int) -> FeedEntry {
        var entry = FeedEntry(index: index)
        func skip(_ kind: CatalogWarning.Kind) -> FeedEntry {
            entry.problem = kind
            return entry
        }
        guard case .string(let id)? = fields.id else {
            return skip(.missing(field: "ID", expected: "a string of at most 1,024 bytes"))
        }
        entry.id = id
        guard case .string(let title)? = fields.title else { return skip(.missing(field: "Title", expected: "a string")) }
        entry.title = title
        guard case .string(let download)? = fields.downloadURL else { return skip(.missing(field: "Download URL", expected: "a string")) }
        if let cover = fields.coverURL {
            guard case .string(let address) = cover else { return skip(.invalid(field: "Cover URL", expected: "a string")) }
            entry.covers = [address]
        }
        if let releaseDate = fields.releaseDate {
            guard case .date(let value) = releaseDate else { return skip(.invalid(field: "Release date", expected: "a date")) }
            entry.releaseDate = value
        }
        entry.isFree = false
        if let free = fields.free {
            guard case .boolean(let value) = free else { return skip(.invalid(field: "Free", expected: "a boolean")) }
            entry.isFree = value
        }
        if let summary = fields.summary {
            guard case .string(let value) = summary else { return skip(.invalid(field: "Summary", expected: "a string")) }
            entry.summary = value
        }
        if case .string(let value)? = fields.authors { entry.authors = [value] }
        var price: String?
        if case .string(let value)? = fields.price { price = value }
        // A snapshot names each key beside its ID; the validator still checks it.
        if case .string(let key)? = fields.localKey { entry.localKey = key }
        let main = PropertyListFields.Offer(
            downloadURL: download, mediaType: fields.mediaType, size: fields.size, advertisedSize: fields.advertisedSize,
            sha256: fields.sha256, webPage: fields.webPage)
        switch acquisition(main, price: price) {
        case .success(let offer): entry.acquisitions = [offer]
        case .failure(let unusable): return skip(unusable.kind)
        }
        // A snapshot keeps the catalog's other forms of the issue, preferred first.
        if case .array(let alternatives)? = fields.alternatives {
            for case .dictionary(let dictionary) in alternatives {
                guard case .string(let address)? = dictionary["Download URL"] else { continue }
                let offer = PropertyListFields.Offer(
                    downloadURL: address, mediaType: dictionary["Media type"], size: dictionary["Size"],
                    advertisedSize: dictionary["Advertised size"], sha256: dictionary["SHA256"], webPage: dictionary["Web page"])
                if case .success(let acquisition) = acquisition(offer, price: nil) { entry.acquisitions.append(acquisition) }
            }
        }
        return entry
    }

    /// One way to get the issue, from its keys.
    private static func acquisition(_ offer: PropertyListFields.Offer, price: String?) -> Result<FeedAcquisition, Unusable> {
        var size: Int64?
        // A promised `Size` wins over a feed's advertised one kept by a snapshot.
        let advisory = offer.size == nil && offer.advertisedSize != nil
        if let value = offer.size ?? offer.advertisedSize {
            if case .bigInteger = value { return .failure(Unusable(kind: .invalid(field: "Size", expected: "a number of bytes below 2^63"))) }
            guard case .integer(let bytes) = value, bytes >= 0 else {
                return .failure(Unusable(kind: .invalid(field: "Size", expected: "a non-negative integer")))
            }
            size = bytes
        }
        var digest: String?
        if let sha256 = offer.sha256 {
            guard case .string(let string) = sha256, let value = normalizedDigest(string) else {
                return .failure(Unusable(kind: .invalid(field: "SHA256", expected: "64 hex digits")))
            }
            digest = value
        }
        var mediaType: String
        if let given = offer.mediaType {
            guard case .string(let string) = given, let type = MediaType(mimeType: string) else {
                return .failure(Unusable(kind: .invalid(field: "Media type", expected: "the media type of a PDF, EPUB, CBZ or HPub")))
            }
            // In a property list `application/zip` has always meant Baker's HPub.
            mediaType = type.mimeTypeForSnapshot
        } else {
            // Without a media type the URL's extension says, else a PDF, which every property-list
            // catalog served before other formats existed.
            mediaType = (MediaType(address: offer.downloadURL) ?? .pdf).mimeTypeForSnapshot
        }
        return .success(FeedAcquisition(
            address: offer.downloadURL, mediaType: mediaType, size: size, price: price, throughWebPage: offer.webPage == .boolean(true),
            sha256: digest, sizeIsAdvisory: advisory))
    }

    /// Why an acquisition's keys cannot be used.
    private struct Unusable: Error {
        var kind: CatalogWarning.Kind
    }

    private static func normalizedDigest(_ string: String) -> String? {
        let lower = string.lowercased()
        guard lower.utf8.count == 64, lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            return nil
        }
        return lower
    }

    /// The error a parser's complaint becomes.
    private static func failure(_ error: PropertyListError, data: Data) -> NewsstandError {
        switch error.kind {
        case .entityDeclaration:
            return NewsstandError.invalidCatalog("declares XML entities, which are not allowed.")
        case .tooDeep(let limit):
            return NewsstandError.invalidCatalog("nests deeper than \(limit) levels.")
        case .notACatalog:
            return notACatalog
        case .missingIssues:
            return missingIssues
        case .malformed(let reason):
            let kind = data.starts(with: Array("bplist00".utf8)) ? "binary property list" : "property list"
            return NewsstandError.invalidCatalog("is not a valid \(kind) (\(reason)).")
        }
    }
}

extension MediaType {
    /// The media type a property list (and so the cache's snapshot) gives for this type: one
    /// that reads back as this same type.
    var mimeTypeForSnapshot: String { self == .hpub ? "application/hpub+zip" : mimeType }
}
