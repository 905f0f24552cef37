import Foundation

/// A checked catalog written as a binary property list: how a feed is cached once read.
///
/// A feed of many pages becomes one file, read back by ``CatalogDecoder``'s parallel binary
/// reader and so opened offline as fast as a property-list catalog; the feed's own search link
/// travels with it.
public enum CatalogSnapshot {
    public static func data(of catalog: Catalog) throws(NewsstandError) -> Data {
        var issues: [Any] = []
        issues.reserveCapacity(catalog.entries.count)
        for entry in catalog.entries {
            let fields = entry.fields
            var item: [String: Any] = [
                "ID": fields.id, "Title": fields.title, "Download URL": fields.acquisition.address, "Free": fields.isFree,
                "Media type": fields.acquisition.mediaType.mimeTypeForSnapshot,
            ]
            if let date = fields.releaseDate { item["Release date"] = date }
            if let cover = fields.coverAddress { item["Cover URL"] = cover }
            if let size = fields.acquisition.size { item["Size"] = size }
            if let digest = fields.acquisition.sha256 { item["SHA256"] = digest }
            if let summary = fields.summary { item["Summary"] = summary }
            if let price = fields.price { item["Price"] = price }
            if let authors = fields.authors { item["Authors"] = authors }
            issues.append(item)
        }
        var root: [String: Any] = ["Issues": issues]
        if let title = catalog.title { root["Title"] = title }
        switch catalog.search {
        case .template(let template)?: root["Search template"] = template
        case .description(let address)?: root["Search description"] = address
        case nil: break
        }
        do {
            return try PropertyListSerialization.data(fromPropertyList: root, format: .binary, options: 0)
        } catch {
            throw NewsstandError(.fileSystem, "The catalog could not be written to the cache (\(error.localizedDescription)).")
        }
    }
}

extension MediaType {
    /// The media type written into a snapshot: one that reads back as this same type.
    var mimeTypeForSnapshot: String { self == .hpub ? "application/hpub+zip" : mimeType }
}
