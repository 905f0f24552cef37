import Foundation

/// RSS 2.0 feeds whose items carry an enclosure (or `media:content`) of a PDF, EPUB, CBZ or zip.
public struct RSSFeedFormat: CatalogFormat {
    public init() {}

    public var kind: CatalogFormatKind { .rss }

    static let media = "http://search.yahoo.com/mrss/"
    static let itunes = "http://www.itunes.com/dtds/podcast-1.0.dtd"
    static let content = "http://purl.org/rss/1.0/modules/content/"
    /// RSS 2.0 as Userland once published it, in a namespace of its own: read as plain RSS.
    static let userland = "http://backend.userland.com/rss2"

    public func recognition(contentType: String?, sniff: DocumentSniff) -> Recognition {
        let typed = contentType.map { $0.lowercased().contains("rss+xml") } ?? false
        var shaped = false
        if case .xml(let root, _) = sniff.shape { shaped = root == "rss" }
        return Recognition(typed: typed, shaped: shaped, sniff: sniff)
    }

    public func nextPageHint(_ data: Data, url: URL) -> String? {
        NextPageHint.xml(data, url: url)
    }

    public func read(_ data: Data, url: URL, limits: CatalogLimits) throws(NewsstandError) -> FeedPage {
        try XMLFeed.parse(data, limits: limits).reading { tree throws(NewsstandError) in try read(tree, url: url) }
    }

    /// The page of a parsed feed, its text read from the bytes ``XMLTree/reading(_:)`` holds.
    private func read(_ tree: XMLTree, url: URL) throws(NewsstandError) -> FeedPage {
        guard tree.isElement(tree.root, "rss", in: nil) && namespace(of: tree.root, in: tree) == nil, let channel = tree.children(of: tree.root).first(where: { namespace(of: $0, in: tree) == nil && tree.isElement($0, "channel", in: nil) }) else {
            throw NewsstandError.invalidCatalog("is XML but not an RSS feed (no <rss><channel>).")
        }
        var page = FeedPage(format: .rss, url: url)
        page.title = tree.children(of: channel).first { namespace(of: $0, in: tree) == nil && tree.isElement($0, "title", in: nil) }
            .map { tree.text(of: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        var bases = XMLBases(tree, document: url)
        var channelCover: String?
        var index = 0
        page.entries.reserveCapacity(tree.childCount(of: channel))
        for child in tree.children(of: channel) {
            switch (namespace(of: child, in: tree), tree.name(of: child)) {
            case (nil, "item"):
                read(item: child, tree: tree, index: index, bases: &bases, into: &page)
                index += 1
            case (nil, "image"):
                channelCover = tree.childText(of: child, "url", in: nil)
            case (Self.itunes?, "image"):
                channelCover = channelCover ?? tree.attribute("href", of: child)
            case (AtomFeedFormat.atom?, "link"):
                // RFC 5005 paging inside RSS.
                if tree.attribute("rel", of: child) == "next", let href = tree.attribute("href", of: child) {
                    page.next = XMLFeed.resolve(href, against: bases.base(of: child))
                }
            default:
                break
            }
        }
        if let channelCover {
            for position in page.entries.indices where page.entries[position].covers.isEmpty {
                page.entries[position].covers = [channelCover]
            }
        }
        return page
    }

    /// An element's namespace, the Userland one read as none.
    private func namespace(of element: Int, in tree: XMLTree) -> String? {
        let namespace = tree.namespace(of: element)
        return namespace == Self.userland ? nil : namespace
    }

    private func read(item: Int, tree: XMLTree, index: Int, bases: inout XMLBases, into page: inout FeedPage) {
        var entry = FeedEntry(index: index)
        var link: String?
        var fullText: String?
        var html: [Int] = []
        // Titles and dates from the other vocabularies feeds use, when RSS's own are missing.
        var otherTitle: String?
        var issued: Date?
        for child in tree.children(of: item) {
            switch (namespace(of: child, in: tree), tree.name(of: child)) {
            case (nil, "guid"):
                entry.id = tree.text(of: child)
            case (nil, "title"):
                entry.title = XMLFeed.text(of: child, tree: tree, html: true)
            case (nil, "link"):
                link = tree.text(of: child)
            case (nil, "pubDate"):
                entry.releaseDate = FeedDate.rfc822(tree.text(of: child)) ?? FeedDate.iso8601(tree.text(of: child)) ?? entry.releaseDate
            case (AtomFeedFormat.dcElements?, "date"), (AtomFeedFormat.dcTerms?, "date"), (AtomFeedFormat.dcTerms?, "issued"),
                 (AtomFeedFormat.dcTerms?, "created"), (AtomFeedFormat.dcTerms?, "modified"):
                if issued == nil || tree.isElement(child, "issued", in: nil) {
                    let text = tree.text(of: child)
                    issued = FeedDate.iso8601(text) ?? FeedDate.rfc822(text) ?? issued
                }
            case (AtomFeedFormat.dcElements?, "title"), (AtomFeedFormat.dcTerms?, "title"), (Self.media?, "title"):
                if otherTitle == nil { otherTitle = XMLFeed.text(of: child, tree: tree, html: true) }
            case (nil, "description"):
                entry.summary = XMLFeed.text(of: child, tree: tree, html: true)
                html.append(child)
            case (Self.content?, "encoded"):
                fullText = XMLFeed.text(of: child, tree: tree, html: true)
                html.append(child)
            case (nil, "author"), (AtomFeedFormat.dcElements?, "creator"), (Self.itunes?, "author"):
                let name = tree.text(of: child)
                if !name.isEmpty, !entry.authors.contains(name) { entry.authors.append(name) }
            case (nil, "enclosure"):
                if let written = tree.attribute("url", of: child) {
                    let address = bases.address(written, of: child)
                    entry.acquisitions.append(FeedAcquisition(
                        address: address, mediaType: tree.attribute("type", of: child), size: XMLFeed.size(tree.attribute("length", of: child))))
                }
            case (Self.media?, "content"):
                readMediaContent(child, tree: tree, bases: &bases, into: &entry)
            case (Self.media?, "group"):
                for content in tree.children(of: child) where tree.isElement(content, "content", in: Self.media) {
                    readMediaContent(content, tree: tree, bases: &bases, into: &entry)
                }
            case (Self.media?, "thumbnail"):
                if let address = tree.attribute("url", of: child) { entry.covers.insert(bases.address(address, of: child), at: 0) }
            case (Self.itunes?, "image"):
                if let address = tree.attribute("href", of: child) { entry.covers.append(bases.address(address, of: child)) }
            default:
                break
            }
        }
        if entry.summary == nil { entry.summary = fullText }
        if entry.title?.isEmpty ?? true { entry.title = otherTitle }
        if entry.releaseDate == nil { entry.releaseDate = issued }
        WikimediaPicture.adopt(html, of: tree, into: &entry)
        guard !entry.acquisitions.isEmpty else {
            page.itemsWithoutDownload += 1
            return
        }
        // An item without a guid is known by its link, else by what it downloads.
        entry.id = entry.id ?? link ?? entry.acquisitions[0].address
        page.entries.append(entry)
    }

    private func readMediaContent(_ content: Int, tree: XMLTree, bases: inout XMLBases, into entry: inout FeedEntry) {
        guard let written = tree.attribute("url", of: content) else { return }
        let address = bases.address(written, of: content)
        let type = tree.attribute("type", of: content)
        if tree.attribute("medium", of: content) == "image" || type?.lowercased().hasPrefix("image/") == true {
            entry.covers.append(address)
        } else {
            entry.acquisitions.append(FeedAcquisition(address: address, mediaType: type, size: XMLFeed.size(tree.attribute("fileSize", of: content))))
        }
    }
}
