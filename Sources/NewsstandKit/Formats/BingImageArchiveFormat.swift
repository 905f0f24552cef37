import Foundation

/// Bing's daily image archive (`HPImageArchive.aspx?format=js`): `images[]` of pictures, each an
/// issue that is its own cover. `startdate` is the day, `copyright` the summary, `hsh` the ID.
public struct BingImageArchiveFormat: CatalogFormat {
    public init() {}

    public var kind: CatalogFormatKind { .bingArchive }

    public func recognition(contentType: String?, sniff: DocumentSniff) -> Recognition {
        guard case .jsonObject(let keys) = sniff.shape, keys.contains("images"), !keys.contains("metadata") else { return .no }
        let typed = contentType.map { $0.lowercased().contains("json") } ?? false
        return typed ? .certain : .byContent
    }

    public func read(_ data: Data, url: URL, limits: CatalogLimits) throws(NewsstandError) -> FeedPage {
        guard let root = try JSONFeed.parse(data, limits: limits) as? [String: Any], let images = root["images"] as? [Any] else {
            throw NewsstandError.invalidCatalog("is JSON but not Bing's image archive (no images array).")
        }
        var page = FeedPage(format: .bingArchive, url: url)
        page.title = "Bing's picture of the day"
        for (index, value) in images.enumerated() {
            guard let image = value as? [String: Any], let written = JSONFeed.string(image["url"]),
                  let address = XMLFeed.resolve(written, against: url) else {
                page.itemsWithoutDownload += 1
                continue
            }
            var entry = FeedEntry(index: index)
            let copyright = JSONFeed.string(image["copyright"])
            let day = JSONFeed.string(image["fullstartdate"]).flatMap(FeedDate.compact) ?? JSONFeed.string(image["startdate"]).flatMap(FeedDate.compact)
            entry.id = JSONFeed.string(image["hsh"]) ?? JSONFeed.string(image["startdate"]) ?? written
            // Recent archives title every picture "Info"; the copyright line starts with what it shows.
            let title = JSONFeed.string(image["title"]).flatMap { $0 == "Info" || $0.isEmpty ? nil : $0 }
            entry.title = title ?? copyright.map(Self.subject)
            entry.summary = copyright
            entry.releaseDate = day
            // The archive's pictures are JPEGs, whatever the address's extension (`/th?id=…`).
            entry.acquisitions = [FeedAcquisition(address: address, mediaType: "image/jpeg")]
            // A small picture of the same as the cover: Bing serves each size by its suffix.
            if let base = JSONFeed.string(image["urlbase"]), let cover = XMLFeed.resolve(base + "_400x240.jpg", against: url) {
                entry.covers = [cover]
            }
            page.entries.append(entry)
        }
        return page
    }

    /// What a copyright line says the picture shows: the words before its `(©` (or Japanese and
    /// Chinese archives' full-width `（©`).
    static func subject(_ copyright: String) -> String {
        let cut = [" (©", "（©", "(©"].compactMap { copyright.range(of: $0)?.lowerBound }.min() ?? copyright.endIndex
        let subject = copyright[..<cut].trimmingCharacters(in: .whitespaces)
        return subject.isEmpty ? copyright : subject
    }
}
