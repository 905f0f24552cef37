import Foundation

/// Turns the pages a format read into one ``Catalog``, by the one set of rules every format
/// shares — the property list and the cache's snapshot as much as any feed: an ID of at most
/// 1,024 bytes whose ``LocalKey`` is what becomes a folder, only http(s) URLs (file URLs for a
/// catalog on this machine), one entry per local key, a download of a kind we can open, a cover
/// that is a link or a `data:` image of at most ``CatalogLimits/maximumInlineCover`` bytes, and
/// text with its white space collapsed and its length capped.
public struct CatalogValidator: Sendable {
    public var limits: CatalogLimits
    /// Whether the catalog is a file the user named on this machine (its file links may be read).
    public var allowFiles: Bool

    public init(limits: CatalogLimits = CatalogLimits(), allowFiles: Bool = false) {
        self.limits = limits
        self.allowFiles = allowFiles
    }

    /// The longest title kept, in characters.
    static let maximumTitle = 1_000
    /// The longest summary kept, in characters.
    static let maximumSummary = 4_000

    /// A page whose entries are checked, to be joined with the pages around it (the
    /// `catalog(from:remarks:)` of checked pages). A feed's later page is checked on the thread
    /// that read it while the next one is fetched, and its raw entries go then: checking 10,000
    /// entries once the last of 100 pages was in took a fifth of the time after its request.
    struct CheckedPage: Sendable {
        /// Each entry's outcome in its page's order, in the pieces they were checked in.
        fileprivate let outcomes: [[Checked]]
        /// Entries the page held, usable or not.
        let entryCount: Int
        /// The page's next page, resolved.
        let next: String?
        /// Places the page spans in its document (its last entry's index + 1): the next page's
        /// entries count on from them.
        fileprivate let span: Int
        fileprivate let itemsWithoutDownload: Int
        fileprivate let templatedLinks: Int
        fileprivate let title: String?
        fileprivate let format: CatalogFormatKind
        fileprivate let search: FeedSearch?
        fileprivate let navigation: [FeedLink]
    }

    public func catalog(from pages: [FeedPage], remarks: [CatalogRemark] = []) -> Catalog {
        catalog(from: pages.map(check), remarks: remarks)
    }

    /// The entries of one piece of a page, checked. A format that reads a page's entries in
    /// pieces on several cores checks each piece on the core that read it (``PiecewiseFormat``):
    /// every core then waits for the others once a page, not once to read and again to check.
    struct CheckedPiece: Sendable {
        fileprivate let outcomes: [Checked]
        /// The piece's last entry's index + 1; 0 when it has none.
        fileprivate let span: Int
        let entryCount: Int
    }

    /// The entries a page was read into, left once they are checked: for the caller to free
    /// where that is nobody's wait (on another core, or after the page is handed over).
    struct ReadEntries: Sendable {
        fileprivate let pieces: [[FeedEntry]]
    }

    /// `data` read by `format` and its entries checked; a ``PiecewiseFormat``'s in each piece
    /// where it was read.
    func readAndCheck(_ data: Data, url: URL, format: any CatalogFormat,
                      limits: CatalogLimits) throws(NewsstandError) -> (checked: CheckedPage, read: ReadEntries) {
        guard let piecewise = format as? any PiecewiseFormat else {
            let page = try format.read(data, url: url, limits: limits)
            return (check(page), ReadEntries(pieces: [page.entries]))
        }
        let resolver = URLResolver(base: url)
        // The page's own format (OPDS, or plain Atom) is known only once every piece is read;
        // the one the format names itself by words the warnings the same way.
        let (page, pieces) = try piecewise.read(data, url: url, limits: limits) { entries in
            let checked = entries.withUnsafeBufferPointer { check(piece: $0, resolver: resolver, format: piecewise.kind) }
            return (checked: checked, read: entries)
        }
        return (self.page(page, checked: pieces.map(\.checked)), ReadEntries(pieces: pieces.map(\.read)))
    }

    /// Checks every entry of `page`, on every core when it has many: they are independent.
    func check(_ page: FeedPage) -> CheckedPage {
        let resolver = URLResolver(base: page.url)
        // An entry is read where its page keeps it, through the page's buffer: copying it out
        // (for its index, or to hand it over) retained and released every string it holds.
        let pieces = Pieces.map(page.entries.count) { range, _ -> CheckedPiece in
            page.entries.withUnsafeBufferPointer { check(piece: UnsafeBufferPointer(rebasing: $0[range]), resolver: resolver, format: page.format) }
        }
        return self.page(page, checked: pieces)
    }

    /// Checks a piece of a page's entries, each against `resolver` (the page's address).
    func check(piece entries: UnsafeBufferPointer<FeedEntry>, resolver: URLResolver, format: CatalogFormatKind) -> CheckedPiece {
        var outcomes: [Checked] = []
        outcomes.reserveCapacity(entries.count)
        var last = -1
        guard let first = entries.baseAddress else { return CheckedPiece(outcomes: [], span: 0, entryCount: 0) }
        // Each entry is read through a pointer to where its piece keeps it: passed as a value
        // (even `borrowing`), it was copied whole, its strings and arrays retained and released.
        for position in 0..<entries.count {
            let entry = first + position
            outcomes.append(check(entry, resolver: resolver, format: format))
            last = max(last, entry.pointee.index)
        }
        return CheckedPiece(outcomes: outcomes, span: last + 1, entryCount: entries.count)
    }

    /// `page` (all but its entries) with the pieces its entries were checked in, in order.
    func page(_ page: FeedPage, checked pieces: [CheckedPiece]) -> CheckedPage {
        CheckedPage(outcomes: pieces.map(\.outcomes), entryCount: pieces.reduce(0) { $0 + $1.entryCount }, next: page.next,
                    span: pieces.reduce(0) { max($0, $1.span) }, itemsWithoutDownload: page.itemsWithoutDownload,
                    templatedLinks: page.templatedLinks, title: page.title, format: page.format, search: page.search,
                    navigation: page.navigation)
    }

    /// The catalog of checked pages, in order: the first of each local key is kept, later ones
    /// become warnings; each warning's place counts on from the pages before its own.
    func catalog(from pages: [CheckedPage], remarks: [CatalogRemark] = []) -> Catalog {
        // Assembled as the outcomes come, not through a list of them made first and walked again.
        let items = pages.reduce(0) { $0 + $1.entryCount }
        var entries: [CatalogEntry] = []
        entries.reserveCapacity(items)
        var warnings: [CatalogWarning] = []
        var positions = KeyIndex(capacity: items)
        var withoutDownload = 0, samplesOnly = 0, templated = 0
        // Entries and warnings so far, which number a duplicate; and the places of the pages before.
        var numbered = 0, offset = 0
        for page in pages {
            withoutDownload += page.itemsWithoutDownload
            templated += page.templatedLinks
            for piece in page.outcomes {
                for outcome in piece {
                    switch outcome {
                    case .entry(let entry, let keyHash):
                        if positions.position(ofKeyOf: entry, hash: keyHash, in: entries) != nil {
                            warnings.append(CatalogWarning(.duplicateID, index: numbered, id: entry.box.fields.id))
                        } else {
                            positions.append(hash: keyHash, isFirst: true)
                            entries.append(entry)
                        }
                        numbered += 1
                    case .warning(let warning):
                        warnings.append(offset == 0 ? warning : CatalogWarning(warning.kind, index: warning.index + offset, id: warning.id))
                        numbered += 1
                    case .nothingToDownload: withoutDownload += 1
                    case .sampleOnly:
                        withoutDownload += 1
                        samplesOnly += 1
                    }
                }
            }
            offset += page.span
        }
        let first = pages.first
        var catalog = Catalog(title: first?.title.map(Self.clean), entries: entries, warnings: warnings, positions: positions)
        catalog.format = first?.format ?? .propertyList
        catalog.search = first?.search
        catalog.navigation = first?.navigation ?? []
        catalog.itemsWithoutDownload = withoutDownload
        catalog.remarks = remarks
        if samplesOnly > 0 { catalog.remarks.append(.samplesOnly(count: samplesOnly)) }
        if templated > 0 { catalog.remarks.append(.templatedLinks(count: templated)) }
        return catalog
    }

    fileprivate enum Checked: Sendable {
        /// An entry, and the hash of its key (``KeyIndex``), taken while the key is in this core's cache.
        case entry(CatalogEntry, keyHash: Int)
        case warning(CatalogWarning)
        case nothingToDownload
        case sampleOnly
    }

    private func check(_ entry: UnsafePointer<FeedEntry>, resolver: URLResolver, format: CatalogFormatKind) -> Checked {
        let index = entry.pointee.index
        // Formats fall back to what identifies an item best; an entry with nothing at all is skipped.
        guard let id = entry.pointee.id.map(Self.clean), !id.isEmpty, id.utf8.count <= 1024 else {
            if entry.pointee.problem == .notAnEntry { return .warning(CatalogWarning(.notAnEntry, index: index, id: nil)) }
            if entry.pointee.acquisitions.isEmpty && entry.pointee.problem == nil { return .nothingToDownload }
            return .warning(CatalogWarning(.missing(field: format.idField, expected: "a string of at most 1,024 bytes"), index: index, id: nil))
        }
        if let problem = entry.pointee.problem { return .warning(CatalogWarning(problem, index: index, id: id)) }
        // Most entries have one usable download: it is held apart, and an array is made only
        // for a second (an array for each entry was one allocation in twenty). Each is kept with
        // its offer's place, not a copy of the offer: copying offers in and out of candidates
        // retained and released each of their strings, a sixth of checking an entry.
        let offers = entry.pointee.acquisitions
        var single: (acquisition: Acquisition, offer: Int)?
        var usable: [(acquisition: Acquisition, offer: Int)] = []
        var sawUnsupportedURL = false
        // A sample is not the issue: it is never what gets downloaded.
        for position in offers.indices where offers[position].access != .sample {
            guard let address = resolver.resolve(offers[position].address, allowFiles: allowFiles) else {
                sawUnsupportedURL = true
                continue
            }
            let declared = offers[position].mediaType
            let declaredType = declared.flatMap(MediaType.init(mimeType:))
            var type = declaredType ?? MediaType(address: address)
            // Servers type comics and books as plain `application/zip` (Komga does): the name says
            // which; only Baker's shelf, which says `application/hpub+zip`, means an HPub.
            if type == .hpub, declared.map(Self.isPlainZip) ?? true {
                let named = MediaType(address: address)
                type = named == nil || named == .hpub ? .cbz : named
            }
            // A link typed as something else (an HTML store page) is not a download, whatever its extension.
            if let declared, declaredType == nil, !Self.isGeneric(declared) { continue }
            guard let type else { continue }
            let size = offers[position].size.flatMap { $0 >= 0 ? $0 : nil }
            // Without a size there is nothing to advise: one value for "no size", whatever the format.
            let candidate = (acquisition: Acquisition(address: address, mediaType: type, size: size, sha256: offers[position].sha256,
                                                      sizeIsAdvisory: size != nil && offers[position].sizeIsAdvisory,
                                                      throughWebPage: offers[position].throughWebPage), offer: position)
            if single == nil, usable.isEmpty {
                single = candidate
            } else {
                if let first = single {
                    usable.append(first)
                    single = nil
                }
                usable.append(candidate)
            }
        }
        if single == nil, usable.isEmpty {
            if sawUnsupportedURL {
                return .warning(CatalogWarning(.unsupportedURL(field: format.downloadField), index: index, id: id))
            }
            return offers.contains { $0.access == .sample } ? .sampleOnly : .nothingToDownload
        }
        // As the OPDS spec orders them: open-access and plain acquisitions first, then borrow, buy and
        // subscribe, then those only a browser completes; within each, documents before pictures
        // (an item with a PDF and its photo is the PDF), then the feed's order.
        func rank(_ candidate: (acquisition: Acquisition, offer: Int)) -> Int {
            (offers[candidate.offer].throughWebPage ? 4 : offers[candidate.offer].access == .paid ? 2 : 0)
                + (candidate.acquisition.mediaType.isPicture ? 1 : 0)
        }
        if usable.count > 1 {
            usable = usable.enumerated().sorted { (rank($0.element), $0.offset) < (rank($1.element), $1.offset) }.map(\.element)
        }
        let preferred = single ?? usable[0]
        let preferredOffer = preferred.offer
        let title = entry.pointee.title.map(Self.clean).flatMap { $0.isEmpty ? nil : $0 } ?? id
        var cover: String?
        for candidate in entry.pointee.covers {
            if let inline = inlineCover(candidate) {
                cover = inline
                break
            }
            if let address = resolver.resolve(candidate, allowFiles: allowFiles) {
                cover = address
                break
            }
        }
        // A JPEG or PNG is its own cover (a WebP is made one, once downloaded: the shelf cannot decode it).
        if cover == nil, preferred.acquisition.mediaType == .jpeg || preferred.acquisition.mediaType == .png { cover = preferred.acquisition.address }
        let summary = entry.pointee.summary.map { Self.capped(Self.clean($0), Self.maximumSummary) }.flatMap { $0.isEmpty ? nil : $0 }
        // Joined as they come: an array mapped, then filtered, was two allocations an entry.
        var authors: String?
        for author in entry.pointee.authors {
            let name = Self.clean(author)
            guard !name.isEmpty else { continue }
            authors = authors.map { $0 + ", " + name } ?? name
        }
        // A key given beside the ID (the cache's snapshot) is used only if it is one LocalKey accepts.
        let key = entry.pointee.localKey.flatMap { LocalKey.isValid($0) ? $0 : nil }
        let fields = CatalogEntry.Fields(
            id: id, localKey: key, title: Self.capped(title, Self.maximumTitle), releaseDate: entry.pointee.releaseDate, coverAddress: cover,
            acquisition: preferred.acquisition, alternatives: single == nil ? usable.dropFirst().map(\.acquisition) : [],
            isFree: entry.pointee.isFree ?? (offers[preferredOffer].access != .paid && !offers[preferredOffer].throughWebPage), summary: summary,
            price: offers[preferredOffer].price.map(Self.clean), authors: authors)
        return .entry(CatalogEntry(fields), keyHash: KeyIndex.hash(fields.localKey))
    }

    private static func isPlainZip(_ mediaType: String) -> Bool {
        !mediaType.lowercased().contains("hpub")
    }

    /// Types servers put on downloads without saying what they are.
    private static func isGeneric(_ mediaType: String) -> Bool {
        let bare = mediaType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return bare == "application/octet-stream" || bare == "binary/octet-stream" || bare.isEmpty
    }

    private static func isCleanASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last, first != 0x20, last != 0x20 else { return bytes.isEmpty }
        var previous: UInt8 = 0
        for byte in bytes {
            if byte >= 0x80 || byte < 0x20 || (byte == 0x20 && previous == 0x20) { return false }
            previous = byte
        }
        return true
    }

    /// A `data:image/…` cover small enough to keep, as written.
    private func inlineCover(_ candidate: String) -> String? {
        guard candidate.utf8.starts(with: "data:image/".utf8) else { return nil }
        // Base64 takes four characters for three bytes.
        guard candidate.utf8.count <= limits.maximumInlineCover / 3 * 4 + 200,
              let image = InlineCover.decode(candidate), image.count <= limits.maximumInlineCover else { return nil }
        return candidate
    }

    /// At most `limit` characters of `text`. A text of no more bytes than that is whole without
    /// counting: counting characters finds grapheme boundaries, and was a sixth of checking a feed.
    static func capped(_ text: String, _ limit: Int) -> String {
        text.utf8.count <= limit ? text : String(text.prefix(limit))
    }

    /// Text with runs of white space (line breaks and tabs included) made one space, and trimmed.
    static func clean(_ text: String) -> String {
        // Most titles are ASCII with single spaces: checked byte by byte and kept as they are
        // (Unicode's white-space property cost a fifth of reading a feed).
        let utf8 = text.utf8
        if utf8.withContiguousStorageIfAvailable(isCleanASCII) == true { return text }
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !output.isEmpty
            } else {
                if pendingSpace { output.unicodeScalars.append(" ") }
                pendingSpace = false
                output.unicodeScalars.append(scalar)
            }
        }
        return output
    }
}
