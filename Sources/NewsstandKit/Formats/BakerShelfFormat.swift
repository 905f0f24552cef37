import Foundation

/// Baker's `shelf.json`: an array of issues, each an HPub (a zip of HTML pages).
public struct BakerShelfFormat: CatalogFormat {
    public init() {}

    public var kind: CatalogFormatKind { .baker }

    public func recognition(contentType: String?, sniff: DocumentSniff) -> Recognition {
        let typed = contentType.map { $0.lowercased().contains("json") } ?? false
        guard sniff.shape == .jsonArray else { return .no }
        return typed ? .certain : .byContent
    }

    public func read(_ data: Data, url: URL, limits: CatalogLimits) throws(NewsstandError) -> FeedPage {
        guard let items = try JSONFeed.parse(data, limits: limits) as? [Any] else {
            throw NewsstandError.invalidCatalog("is JSON but not a Baker shelf (its root is not an array).")
        }
        var page = FeedPage(format: .baker, url: url)
        for (index, value) in items.enumerated() {
            guard let item = value as? [String: Any] else {
                page.itemsWithoutDownload += 1
                continue
            }
            var entry = FeedEntry(index: index)
            entry.id = JSONFeed.string(item["name"])
            entry.title = JSONFeed.string(item["title"])
            entry.summary = JSONFeed.string(item["info"])
            entry.releaseDate = JSONFeed.string(item["date"]).flatMap(FeedDate.iso8601)
            if let cover = JSONFeed.string(item["cover"]) { entry.covers = [cover] }
            // `product_id` names an in-app purchase: the issue is sold, not free.
            let productID = JSONFeed.string(item["product_id"]).flatMap { $0.isEmpty ? nil : $0 }
            entry.isFree = productID == nil
            if let address = JSONFeed.string(item["url"]) {
                // Every shelf issue is an HPub, whatever its URL ends with.
                entry.acquisitions = [FeedAcquisition(address: address, mediaType: "application/hpub+zip")]
            }
            page.entries.append(entry)
        }
        return page
    }
}
