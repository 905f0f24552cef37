import Foundation

/// JSON Feed 1.1 (and 1.0): `items` whose `attachments` are issues (a PDF, an EPUB, a CBZ),
/// `image` or `banner_image` their covers, `next_url` the next page.
public struct JSONFeedFormat: CatalogFormat {
    public init() {}

    public var kind: CatalogFormatKind { .jsonFeed }

    public func recognition(contentType: String?, sniff: DocumentSniff) -> Recognition {
        let typed = contentType.map { $0.lowercased().contains("feed+json") } ?? false
        var shaped = false
        if case .jsonObject(let keys) = sniff.shape { shaped = keys.contains("version") && keys.contains("items") }
        return Recognition(typed: typed, shaped: shaped, sniff: sniff)
    }

    public func read(_ data: Data, url: URL, limits: CatalogLimits) throws(NewsstandError) -> FeedPage {
        guard let root = try JSONFeed.parse(data, limits: limits) as? [String: Any] else {
            throw NewsstandError.invalidCatalog("is JSON but not a JSON Feed (its root is not an object).")
        }
        guard let version = JSONFeed.string(root["version"]), version.hasPrefix("https://jsonfeed.org/version/") else {
            throw NewsstandError.invalidCatalog("is JSON but not a JSON Feed (it names no https://jsonfeed.org/version/).")
        }
        var page = FeedPage(format: .jsonFeed, url: url)
        page.title = JSONFeed.string(root["title"])
        page.next = JSONFeed.string(root["next_url"]).flatMap { XMLFeed.resolve($0, against: url) }
        // 1.0 had one `author`; 1.1 has `authors`, at the feed's level as at an item's.
        let feedAuthors = Self.authors(root)
        for (index, value) in (root["items"] as? [Any] ?? []).enumerated() {
            guard let item = value as? [String: Any] else {
                page.itemsWithoutDownload += 1
                continue
            }
            var entry = FeedEntry(index: index)
            // IDs are strings in 1.1; 1.0 feeds in the wild write numbers.
            entry.id = JSONFeed.string(item["id"]) ?? JSONFeed.number(item["id"]).map { String(format: "%.0f", $0) }
            entry.title = JSONFeed.string(item["title"])
            entry.summary = JSONFeed.string(item["summary"]) ?? JSONFeed.string(item["content_text"])
                ?? JSONFeed.string(item["content_html"]).map(Self.plainText)
            entry.releaseDate = JSONFeed.string(item["date_published"]).flatMap(FeedDate.iso8601)
                ?? JSONFeed.string(item["date_modified"]).flatMap(FeedDate.iso8601)
            let authors = Self.authors(item)
            entry.authors = authors.isEmpty ? feedAuthors : authors
            entry.covers = ["image", "banner_image"].compactMap { JSONFeed.string(item[$0]).flatMap { XMLFeed.resolve($0, against: url) } }
            for case let attachment as [String: Any] in item["attachments"] as? [Any] ?? [] {
                guard let written = JSONFeed.string(attachment["url"]), let address = XMLFeed.resolve(written, against: url) else { continue }
                entry.acquisitions.append(FeedAcquisition(address: address, mediaType: JSONFeed.string(attachment["mime_type"]),
                                                          size: JSONFeed.size(attachment["size_in_bytes"])))
            }
            guard !entry.acquisitions.isEmpty else {
                page.itemsWithoutDownload += 1
                continue
            }
            // An item is known by its id, else its page, else what it downloads.
            entry.id = entry.id ?? JSONFeed.string(item["url"]) ?? entry.acquisitions[0].address
            page.entries.append(entry)
        }
        return page
    }

    private static func authors(_ object: [String: Any]) -> [String] {
        var names = (object["authors"] as? [Any] ?? []).compactMap { ($0 as? [String: Any]).flatMap { JSONFeed.string($0["name"]) } }
        if names.isEmpty, let author = object["author"] as? [String: Any], let name = JSONFeed.string(author["name"]) { names = [name] }
        return names
    }

    /// `content_html` as a summary: tags dropped, references decoded.
    private static func plainText(_ html: String) -> String {
        XMLText.trimmed(XMLText.decode(ArraySlice(html.utf8)))
    }
}
