import Foundation

/// Turns the bytes of a catalog property list into a ``Catalog``.
///
/// The root is either an array of issue dictionaries or a dictionary with an `Issues` array
/// and an optional `Title`. Entries with a missing or mistyped required key, a duplicate ID or
/// a URL that may not be fetched are skipped with a warning; the rest load. An ID is data: any
/// text of at most 1,024 bytes; its ``LocalKey`` is what becomes a folder.
public struct CatalogDecoder: Sendable {
    /// The largest catalog accepted, in bytes.
    public var maximumSize: Int
    /// The deepest nesting of arrays and dictionaries accepted.
    public var maximumDepth: Int

    public init(maximumSize: Int = 128 << 20, maximumDepth: Int = 16) {
        self.maximumSize = maximumSize
        self.maximumDepth = maximumDepth
    }

    /// Decodes `data`, resolving relative URLs against `baseURL`.
    ///
    /// `file` URLs are accepted only when `baseURL` is itself a file, that is for a catalog the
    /// user named on this machine.
    public func decode(_ data: Data, baseURL: URL) throws(NewsstandError) -> Catalog {
        guard data.count <= maximumSize else {
            throw NewsstandError(.invalidCatalog, "The catalog is \(data.count) bytes, more than the \(maximumSize) allowed.")
        }
        // UTF-16 or a legacy encoding: the property-list parser reads UTF-8.
        let data = try DocumentEncoding.utf8(data)
        let checker = EntryChecker(resolver: URLResolver(base: baseURL), allowFiles: baseURL.isFileURL)
        let (title, results): (String?, [Result<CatalogEntry, CatalogWarning>])
        do {
            if data.starts(with: Array("bplist00".utf8)) {
                (title, results) = try Self.decodeBinary(data, maximumDepth: maximumDepth, checker: checker)
            } else {
                let start = data.prefix(64).drop { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }
                guard start.first == UInt8(ascii: "<") else {
                    throw NewsstandError(.invalidCatalog, "The catalog is not a property list (neither XML nor binary).")
                }
                let root = try XMLPropertyListParser.parse(data, maximumDepth: maximumDepth)
                let items: [PropertyListValue]
                (title, items) = try Self.issues(in: root)
                results = try Self.inPieces(items.count) { range, _ throws(PropertyListError) in
                    range.map { checker.entry(from: items[$0], index: $0) }
                }
            }
        } catch let error as PropertyListError {
            throw Self.failure(error, data: data, maximumDepth: maximumDepth)
        } catch let error as NewsstandError {
            throw error
        } catch {
            throw NewsstandError(.invalidCatalog, "The catalog is not a valid property list.")
        }

        return Catalog.assemble(title: title, results: results)
    }

    /// The root's title and issues: an array of issues, or a dictionary with `Issues` and `Title`.
    private static func issues(in root: PropertyListValue) throws(NewsstandError) -> (String?, [PropertyListValue]) {
        switch root {
        case .array(let array):
            return (nil, array)
        case .dictionary(let dictionary):
            guard case .array(let array)? = dictionary["Issues"] else { throw missingIssues }
            if case .string(let string)? = dictionary["Title"] { return (string, array) }
            return (nil, array)
        default:
            throw notACatalog
        }
    }

    /// A binary catalog is read an issue at a time, straight from its object table and on every
    /// core, without first building the whole tree.
    private static func decodeBinary(_ data: Data, maximumDepth: Int, checker: EntryChecker)
        throws -> (String?, [Result<CatalogEntry, CatalogWarning>]) {
        try BinaryPropertyListParser.withDocument(data, maximumDepth: maximumDepth) { parser, top throws(PropertyListError) in
            var title: String?
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
            case nil:
                throw PropertyListError(kind: .notACatalog)
            }
            let readers = parser.split(into: Pieces.count(for: items.count))
            let depth = itemDepth
            return (title, try inPieces(items.count) { range, piece throws(PropertyListError) in
                var reader = readers[piece]
                var checked: [Result<CatalogEntry, CatalogWarning>] = []
                checked.reserveCapacity(range.count)
                // Keys are matched as bytes, and only the values of known keys are read.
                var slots = [Int](repeating: -1, count: Key.allCases.count)
                for index in range {
                    for slot in slots.indices { slots[slot] = -1 }
                    guard try reader.references(in: items[index], depth: depth, slot: { Key(utf8: $0)?.rawValue }, into: &slots) else {
                        checked.append(checker.notADictionary(index))
                        continue
                    }
                    var fields = RawFields()
                    for key in Key.allCases where slots[key.rawValue] >= 0 {
                        fields.set(key, try reader.value(slots[key.rawValue], depth: depth + 1))
                    }
                    checked.append(checker.entry(from: fields, index: index))
                }
                return checked
            })
        }
    }

    private static let missingIssues = NewsstandError(.invalidCatalog, "The catalog's root dictionary has no `Issues` array.")
    private static let notACatalog = NewsstandError(
        .invalidCatalog, "The catalog's root must be an array of issues or a dictionary with `Issues`.")

    /// The results of `body` for each piece of `0..<count`, joined in order: entries are
    /// independent, and a large catalog is checked on every core at once.
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

    /// The keys an issue dictionary may have.
    private enum Key: Int, CaseIterable {
        case id, title, releaseDate, coverURL, downloadURL, free, size, advertisedSize, sha256, summary, mediaType, price, authors, localKey, webPage

        init?(_ key: String) {
            var key = key
            guard let known = key.withUTF8({ Key(utf8: $0) }) else { return nil }
            self = known
        }

        /// Checks the length and first letter before comparing: one comparison per key.
        init?(utf8 key: UnsafeBufferPointer<UInt8>) {
            func matches(_ name: StaticString) -> Bool {
                name.utf8CodeUnitCount == key.count && memcmp(name.utf8Start, key.baseAddress!, key.count) == 0
            }
            switch (key.count, key.first) {
            case (2, UInt8(ascii: "I")) where matches("ID"): self = .id
            case (5, UInt8(ascii: "T")) where matches("Title"): self = .title
            case (12, UInt8(ascii: "R")) where matches("Release date"): self = .releaseDate
            case (9, UInt8(ascii: "C")) where matches("Cover URL"): self = .coverURL
            case (12, UInt8(ascii: "D")) where matches("Download URL"): self = .downloadURL
            case (4, UInt8(ascii: "F")) where matches("Free"): self = .free
            case (4, UInt8(ascii: "S")) where matches("Size"): self = .size
            case (15, UInt8(ascii: "A")) where matches("Advertised size"): self = .advertisedSize
            case (8, UInt8(ascii: "W")) where matches("Web page"): self = .webPage
            case (6, UInt8(ascii: "S")) where matches("SHA256"): self = .sha256
            case (7, UInt8(ascii: "S")) where matches("Summary"): self = .summary
            case (10, UInt8(ascii: "M")) where matches("Media type"): self = .mediaType
            case (5, UInt8(ascii: "P")) where matches("Price"): self = .price
            case (7, UInt8(ascii: "A")) where matches("Authors"): self = .authors
            case (9, UInt8(ascii: "L")) where matches("Local key"): self = .localKey
            default: return nil
            }
        }
    }

    /// An issue's values by key; a repeated key keeps its last value.
    private struct RawFields {
        var id, title, releaseDate, coverURL, downloadURL, free, size, advertisedSize, sha256, summary, mediaType, price, authors, localKey, webPage: PropertyListValue?

        mutating func set(_ key: Key, _ value: PropertyListValue) {
            switch key {
            case .id: id = value
            case .title: title = value
            case .releaseDate: releaseDate = value
            case .coverURL: coverURL = value
            case .downloadURL: downloadURL = value
            case .free: free = value
            case .size: size = value
            case .advertisedSize: advertisedSize = value
            case .webPage: webPage = value
            case .sha256: sha256 = value
            case .summary: summary = value
            case .mediaType: mediaType = value
            case .price: price = value
            case .authors: authors = value
            case .localKey: localKey = value
            }
        }
    }

    /// Turns one item into an entry, or the warning that says why it is skipped.
    private struct EntryChecker: Sendable {
        let resolver: URLResolver
        let allowFiles: Bool

        func entry(from item: PropertyListValue, index: Int) -> Result<CatalogEntry, CatalogWarning> {
            guard case .dictionary(let dictionary) = item else { return notADictionary(index) }
            var fields = RawFields()
            for pair in dictionary.pairs {
                if let key = Key(pair.key) { fields.set(key, pair.value) }
            }
            return entry(from: fields, index: index)
        }

        func notADictionary(_ index: Int) -> Result<CatalogEntry, CatalogWarning> {
            .failure(CatalogWarning(.notAnEntry, index: index, id: nil))
        }

        func entry(from fields: RawFields, index: Int) -> Result<CatalogEntry, CatalogWarning> {
            let (id, title, releaseDate, coverURL, downloadURL, free, size, sha256, summary) = (
                fields.id, fields.title, fields.releaseDate, fields.coverURL, fields.downloadURL, fields.free, fields.size,
                fields.sha256, fields.summary)
            let (mediaType, price, authors) = (fields.mediaType, fields.price, fields.authors)
            guard case .string(let issueID)? = id, !issueID.isEmpty, issueID.utf8.count <= 1024 else {
                return .failure(CatalogWarning(.missing(field: "ID", expected: "a string of at most 1,024 bytes"), index: index, id: nil))
            }
            // Warnings are made only for entries that are skipped.
            func skip(_ kind: CatalogWarning.Kind) -> Result<CatalogEntry, CatalogWarning> {
                .failure(CatalogWarning(kind, index: index, id: issueID))
            }
            guard case .string(let issueTitle)? = title else { return skip(.missing(field: "Title", expected: "a string")) }
            guard case .string(let downloadString)? = downloadURL else { return skip(.missing(field: "Download URL", expected: "a string")) }
            guard let download = resolver.resolve(downloadString, allowFiles: allowFiles) else {
                return skip(.unsupportedURL(field: "Download URL"))
            }
            var cover: String?
            if let coverURL {
                guard case .string(let string) = coverURL,
                      let url = resolver.resolve(string, allowFiles: allowFiles) ?? (InlineCover.decode(string) != nil ? string : nil) else {
                    return skip(.unsupportedURL(field: "Cover URL"))
                }
                cover = url
            }
            var date: Date?
            if let releaseDate {
                guard case .date(let value) = releaseDate else { return skip(.invalid(field: "Release date", expected: "a date")) }
                date = value
            }
            var isFree = false
            if let free {
                guard case .boolean(let value) = free else { return skip(.invalid(field: "Free", expected: "a boolean")) }
                isFree = value
            }
            var bytes: Int64?
            // A feed's advertised size, kept by its cached snapshot; a promised Size wins.
            let advisory = size == nil && fields.advertisedSize != nil
            if let size = size ?? fields.advertisedSize {
                if case .bigInteger = size { return skip(.invalid(field: "Size", expected: "a number of bytes below 2^63")) }
                guard case .integer(let value) = size, value >= 0 else {
                    return skip(.invalid(field: "Size", expected: "a non-negative integer"))
                }
                bytes = value
            }
            var digest: String?
            if let sha256 {
                guard case .string(let string) = sha256, let value = CatalogDecoder.normalizedDigest(string) else {
                    return skip(.invalid(field: "SHA256", expected: "64 hex digits"))
                }
                digest = value
            }
            var text: String?
            if let summary {
                guard case .string(let value) = summary else { return skip(.invalid(field: "Summary", expected: "a string")) }
                text = value
            }
            var type: MediaType?
            if let mediaType {
                guard case .string(let string) = mediaType, let value = MediaType(mimeType: string) else {
                    return skip(.invalid(field: "Media type", expected: "the media type of a PDF, EPUB, CBZ or HPub"))
                }
                type = value
            }
            var optional: (price: String?, authors: String?) = (nil, nil)
            if case .string(let value)? = price { optional.price = value }
            if case .string(let value)? = authors { optional.authors = value }
            // Without a media type the URL's extension says, else a PDF, which every property-list
            // catalog served before other formats existed.
            let acquisition = Acquisition(
                address: download, mediaType: type ?? MediaType(address: download) ?? .pdf, size: bytes, sha256: digest, sizeIsAdvisory: advisory,
                throughWebPage: fields.webPage == .boolean(true))
            // A cache's snapshot names each key beside its ID; any key given is still checked.
            var key: String?
            if case .string(let given)? = fields.localKey, LocalKey.isValid(given) { key = given }
            return .success(CatalogEntry(CatalogEntry.Fields(
                id: issueID, localKey: key, title: issueTitle, releaseDate: date, coverAddress: cover, acquisition: acquisition,
                isFree: isFree, summary: text, price: optional.price, authors: optional.authors)))
        }
    }

    private static func normalizedDigest(_ string: String) -> String? {
        let lower = string.lowercased()
        guard lower.utf8.count == 64, lower.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            return nil
        }
        return lower
    }

    /// The error a parser's complaint becomes.
    private static func failure(_ error: PropertyListError, data: Data, maximumDepth: Int) -> NewsstandError {
        switch error.kind {
        case .entityDeclaration:
            return NewsstandError(.invalidCatalog, "The catalog declares XML entities, which are not allowed.")
        case .tooDeep(let limit):
            return NewsstandError(.invalidCatalog, "The catalog nests deeper than \(limit) levels.")
        case .notACatalog:
            return notACatalog
        case .missingIssues:
            return missingIssues
        case .malformed(let reason):
            let kind = data.starts(with: Array("bplist00".utf8)) ? "binary property list" : "property list"
            return NewsstandError(.invalidCatalog, "The catalog is not a valid \(kind) (\(reason)).")
        }
    }
}
