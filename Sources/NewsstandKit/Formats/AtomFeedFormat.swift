import Foundation

/// Atom feeds: OPDS 1.2 catalogs (acquisition and navigation feeds) and plain Atom feeds whose
/// entries carry an enclosure.
public struct AtomFeedFormat: PiecewiseFormat {
    public init() {}

    public var kind: CatalogFormatKind { .opds1 }

    static let atom = "http://www.w3.org/2005/Atom"
    static let opds = "http://opds-spec.org/2010/catalog"
    static let dcTerms = "http://purl.org/dc/terms/"
    static let dcElements = "http://purl.org/dc/elements/1.1/"

    public func recognition(contentType: String?, sniff: DocumentSniff) -> Recognition {
        let typed = contentType.map { $0.lowercased().contains("application/atom+xml") } ?? false
        let shaped: Bool
        if case .xml(let root, let namespace) = sniff.shape {
            shaped = root == "feed" && (namespace == nil || namespace == Self.atom)
        } else {
            shaped = false
        }
        return Recognition(typed: typed, shaped: shaped, sniff: sniff)
    }

    public func nextPageHint(_ data: Data, url: URL) -> String? {
        NextPageHint.xml(data, url: url)
    }

    public func read(_ data: Data, url: URL, limits: CatalogLimits) throws(NewsstandError) -> FeedPage {
        var (page, pieces) = try read(data, url: url, limits: limits) { piece in piece }
        page.entries = FeedEntry.moved(from: pieces.indices.map { index in
            defer { pieces[index] = [] }
            return pieces[index]
        })
        return page
    }

    func read<Piece: Sendable>(_ data: Data, url: URL, limits: CatalogLimits,
                               eachPiece: @Sendable (consuming [FeedEntry]) -> Piece) throws(NewsstandError) -> (page: FeedPage, pieces: [Piece]) {
        let parsed = try XMLFeed.parse(data, limits: limits)
        defer { ReleaseElsewhere.release(parsed) }
        return try parsed.reading { tree throws(NewsstandError) in try read(tree, url: url, eachPiece: eachPiece) }
    }

    /// The page of a parsed feed, its text read from the bytes ``XMLTree/reading(_:)`` holds,
    /// its entries in pieces (``PiecewiseFormat``).
    private func read<Piece: Sendable>(_ tree: XMLTree, url: URL,
                                       eachPiece: @Sendable (consuming [FeedEntry]) -> Piece) throws(NewsstandError) -> (page: FeedPage, pieces: [Piece]) {
        guard tree.isElement(tree.root, "feed", in: Self.atom) else {
            throw NewsstandError.invalidCatalog("is XML but not an Atom feed (its root is <\(TextSanitizer.inert(tree.name(of: 0)))>).")
        }
        var page = FeedPage(format: .atom, url: url)
        var isOPDS = tree.namespaces.contains(Self.opds)
        let vocabularies: [Vocabulary] = tree.namespaces.map {
            $0 == Self.atom ? .atom : $0 == Self.dcTerms || $0 == Self.dcElements ? .dublinCore : .other
        }
        // A text construct (`type="html"` or `"xhtml"`) is reduced to text as an entry's title is.
        if let title = tree.child(of: tree.root, "title", in: Self.atom) {
            let text = XMLFeed.text(of: title, tree: tree)
            page.title = text.isEmpty ? nil : text
        }
        var bases = XMLBases(tree, document: url)
        var entries: [Int] = []
        for child in tree.children(of: tree.root) {
            // By the namespace's index and the name's first bytes, as entries' children are read:
            // each entry's name read in the document, and its namespace compared as text, took
            // 2 ms on one core while the other waited.
            let namespace = tree.elements[child].namespace
            guard namespace >= 0, vocabularies[Int(namespace)] == .atom else { continue }
            if tree.isElement(child, "entry", in: nil) {
                entries.append(child)
            } else if tree.isElement(child, "link", in: nil) {
                readFeedLink(child, tree: tree, url: bases.base(of: child), into: &page)
            }
        }
        // Entries are read on every core, each piece into a page of its own.
        let pieces = Pieces.map(entries.count) { [self, bases, entries] range, _ -> (page: FeedPage, usedOPDS: Bool, made: Piece) in
            var piece = FeedPage(format: .atom, url: url)
            piece.entries.reserveCapacity(range.count)
            var bases = bases
            var usedOPDS = false
            for index in range where read(entry: entries[index], tree: tree, index: index, bases: &bases, vocabularies: vocabularies, into: &piece) {
                usedOPDS = true
            }
            var read: [FeedEntry] = []
            swap(&read, &piece.entries)
            return (piece, usedOPDS, eachPiece(read))
        }
        for piece in pieces {
            page.navigation += piece.page.navigation
            page.itemsWithoutDownload += piece.page.itemsWithoutDownload
            if piece.usedOPDS { isOPDS = true }
        }
        if isOPDS || page.search != nil { page.format = .opds1 }
        return (page, pieces.map(\.made))
    }

    private func readFeedLink(_ link: Int, tree: XMLTree, url: URL, into page: inout FeedPage) {
        guard let href = tree.attribute("href", of: link), let rel = tree.attribute("rel", of: link) else { return }
        let type = tree.attribute("type", of: link)?.lowercased() ?? ""
        switch rel {
        case "next":
            page.next = XMLFeed.resolve(href, against: url)
        case "search":
            guard let address = XMLFeed.resolve(href, against: url) else { return }
            if type.contains("opensearchdescription") {
                if page.search == nil { page.search = .description(address) }
            } else if href.contains("{searchTerms}") {
                // A template is preferred: it needs no second request.
                page.search = .template(address.replacingOccurrences(of: "%7BsearchTerms%7D", with: "{searchTerms}"))
            }
        default:
            break
        }
    }

    /// The vocabularies an entry's elements come from.
    private enum Vocabulary {
        case atom, dublinCore, other
    }

    /// Reads one entry into an issue or a navigation link; says whether it used OPDS vocabulary.
    private func read(entry: Int, tree: XMLTree, index: Int, bases: inout XMLBases, vocabularies: [Vocabulary], into page: inout FeedPage) -> Bool {
        var item = FeedEntry(index: index)
        // Thumbnails first: a terminal cover is a few dozen cells, and they are a fraction of the bytes.
        var thumbnails = 0
        var feedLinks: [(href: String, type: String, rel: String?)] = []
        var usedOPDS = false
        var enclosures = 0
        var issued: Date?
        var published: Date?
        var hasHTML = false
        func vocabulary(_ element: XMLTree.Element) -> Vocabulary {
            element.namespace < 0 ? Vocabulary.other : vocabularies[Int(element.namespace)]
        }
        for child in tree.children(of: entry) {
            let element = tree.elements[child]
            // Namespaces told apart by their index, worked out once a page: comparing URIs for
            // every element of 10,000 entries was a tenth of reading them.
            switch (vocabulary(element), tree.withName(of: child, EntryChild.init)) {
            case (.atom, .id):
                item.id = tree.text(of: child)
            case (.atom, .title):
                item.title = XMLFeed.text(of: child, tree: tree)
            case (.atom, .updated):
                if item.releaseDate == nil { item.releaseDate = tree.withText(of: child, FeedDate.iso8601) }
            case (.atom, .published):
                published = tree.withText(of: child, FeedDate.iso8601) ?? published
            case (.dublinCore, .issued), (.dublinCore, .date):
                // The publication's own date beats the feed's bookkeeping, wherever it stands.
                issued = tree.withText(of: child, FeedDate.iso8601) ?? issued
            case (.dublinCore, .identifier):
                if item.id == nil { item.id = tree.text(of: child) }
            case (.atom, .summary):
                item.summary = XMLFeed.text(of: child, tree: tree)
                hasHTML = true
            case (.atom, .content):
                if item.summary == nil { item.summary = XMLFeed.text(of: child, tree: tree) }
                hasHTML = true
            case (.atom, .author):
                if let name = tree.childText(of: child, "name", in: Self.atom) { item.authors.append(name) }
            case (.atom, .link):
                guard let written = tree.attribute("href", of: child) else { continue }
                let href = bases.address(written, of: child)
                switch tree.withAttribute("rel", of: child, LinkRole.init) {
                case .thumbnail:
                    // Room for the usual pair (a cover and its thumbnail) at once.
                    if item.covers.isEmpty { item.covers.reserveCapacity(2) }
                    item.covers.insert(href, at: thumbnails)
                    thumbnails += 1
                    usedOPDS = true
                case .image:
                    if item.covers.isEmpty { item.covers.reserveCapacity(2) }
                    item.covers.append(href)
                    usedOPDS = true
                case .enclosure:
                    item.acquisitions.append(FeedAcquisition(address: href, mediaType: tree.attribute("type", of: child) ?? "",
                                                             size: XMLFeed.size(tree.attribute("length", of: child))))
                    enclosures += 1
                case .acquisition(let access):
                    usedOPDS = true
                    item.acquisitions.append(acquisition(child, href: href, access: access, type: tree.attribute("type", of: child) ?? "", tree: tree))
                case .other:
                    let type = (tree.attribute("type", of: child) ?? "").lowercased()
                    if type.contains("application/atom+xml") || type.contains("application/opds+json") {
                        feedLinks.append((href, type, tree.attribute("rel", of: child)))
                    }
                }
            default:
                break
            }
        }
        item.releaseDate = issued ?? published ?? item.releaseDate
        if feedLinks.isEmpty, item.acquisitions.isEmpty, hasHTML {
            let html = tree.children(of: entry).filter { child in
                let element = tree.elements[child]
                return vocabulary(element) == .atom && (tree.isElement(child, "summary", in: nil) || tree.isElement(child, "content", in: nil))
            }
            WikimediaPicture.adopt(html, of: tree, into: &item)
        }
        if item.acquisitions.isEmpty, let link = feedLinks.first(where: { $0.rel != "alternate" }) ?? feedLinks.first,
           let address = XMLFeed.resolve(link.href, against: bases.base(of: entry)) {
            let kind: Bool? = link.type.contains("kind=acquisition") ? true : link.type.contains("kind=navigation") ? false : nil
            page.navigation.append(FeedLink(title: item.title ?? address, address: address, isAcquisitionFeed: kind, summary: item.summary))
            return true
        }
        if item.acquisitions.isEmpty {
            page.itemsWithoutDownload += 1
            return usedOPDS
        }
        if item.id == nil { item.id = item.acquisitions[0].address }
        // Moved in, not copied (an append copied it, every string and array of it retained and
        // released; `consume` is refused here): an empty entry goes in, and the two are swapped.
        page.entries.append(FeedEntry(index: index))
        swap(&page.entries[page.entries.count - 1], &item)
        return usedOPDS || enclosures == 0
    }

    /// The names an entry's children are read by, told from their bytes: a switch on the name
    /// as a string compared it with each case in turn, the slow way for every case it was not.
    private enum EntryChild {
        case id, title, updated, published, issued, date, identifier, summary, content, author, link, other

        init(_ name: UnsafeBufferPointer<UInt8>) {
            let equals = name.equals
            switch name.count {
            case 2: self = equals("id") ? .id : .other
            case 4: self = equals("link") ? .link : equals("date") ? .date : .other
            case 5: self = equals("title") ? .title : .other
            case 6: self = equals("author") ? .author : equals("issued") ? .issued : .other
            case 7: self = equals("updated") ? .updated : equals("summary") ? .summary : equals("content") ? .content : .other
            case 9: self = equals("published") ? .published : .other
            case 10: self = equals("identifier") ? .identifier : .other
            default: self = .other
            }
        }
    }

    /// What a link's `rel` makes it, told from the attribute's bytes.
    private enum LinkRole {
        case thumbnail, image, enclosure, acquisition(FeedAcquisition.Access), other

        init(rel bytes: UnsafeBufferPointer<UInt8>?) {
            guard let bytes else {
                self = .other
                return
            }
            let equals = bytes.equals
            if equals("http://opds-spec.org/image/thumbnail") || equals("http://opds-spec.org/thumbnail") || equals("x-stanza-cover-image-thumbnail") {
                self = .thumbnail
            } else if equals("http://opds-spec.org/image") || equals("http://opds-spec.org/cover") || equals("x-stanza-cover-image") {
                self = .image
            } else if equals("enclosure") {
                self = .enclosure
            } else if bytes.hasPrefix("http://opds-spec.org/acquisition") {
                if equals("http://opds-spec.org/acquisition/open-access") {
                    self = .acquisition(.openAccess)
                } else if equals("http://opds-spec.org/acquisition/buy") || equals("http://opds-spec.org/acquisition/borrow")
                            || equals("http://opds-spec.org/acquisition/subscribe") {
                    self = .acquisition(.paid)
                } else if equals("http://opds-spec.org/acquisition/sample") || equals("http://opds-spec.org/acquisition/preview") {
                    self = .acquisition(.sample)
                } else {
                    self = .acquisition(.acquire)
                }
            } else {
                self = .other
            }
        }
    }

    private func acquisition(_ link: Int, href: String, access: FeedAcquisition.Access, type: String, tree: XMLTree) -> FeedAcquisition {
        // `opds:indirectAcquisition` nests; the innermost type is what the reader ends up with.
        var innermost: String?
        var current = link
        while let inner = tree.child(of: current, "indirectAcquisition", in: Self.opds) {
            innermost = tree.attribute("type", of: inner)
            current = inner
            // Through DRM, what arrives is a ticket for another program, not the issue.
            if let innermost, FeedDRM.isProtected(innermost) { break }
        }
        var mediaType: String? = type.isEmpty ? nil : type
        var throughWebPage = false
        if let innermost, mediaType == nil || MediaType(mimeType: mediaType!) == nil && mediaType!.lowercased().hasPrefix("application/octet-stream") {
            mediaType = innermost
        } else if let innermost, let outer = mediaType, FeedAcquisition.isWebPage(outer), MediaType(mimeType: innermost) != nil {
            // A shop's or a library's page that ends in a file a reader opens.
            mediaType = innermost
            throughWebPage = true
        }
        var price: String?
        if let priceElement = tree.child(of: link, "price", in: Self.opds) {
            let amount = tree.text(of: priceElement)
            let currency = tree.attribute("currencycode", of: priceElement) ?? tree.attribute("currencyCode", of: priceElement)
            price = [amount, currency ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
        }
        return FeedAcquisition(address: href, mediaType: mediaType, size: XMLFeed.size(tree.attribute("length", of: link)), access: access, price: price,
                               throughWebPage: throughWebPage)
    }
}

extension FeedAcquisition {
    /// Whether a link's type is a web page rather than a file.
    static func isWebPage(_ mediaType: String) -> Bool {
        let bare = mediaType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return bare == "text/html" || bare == "application/xhtml+xml"
    }
}
