import Foundation

/// A checked catalog written as a binary property list: how a feed is cached once read.
///
/// A feed of many pages becomes one file, read back by ``CatalogDecoder``'s parallel binary
/// reader and so opened offline as fast as a property-list catalog (the feed's search link is
/// kept in the cache's info).
public enum CatalogSnapshot {
    /// The catalog as a binary property list, each issue's local key written beside its ID so
    /// that reading it back needs no hashing.
    public static func data(of catalog: Catalog) throws(NewsstandError) -> Data {
        typealias Value = BinaryPropertyListWriter.Value
        var issues: [Value] = []
        issues.reserveCapacity(catalog.entries.count)
        for entry in catalog.entries {
            let fields = entry.fields
            var pairs: [(String, Value)] = [
                ("ID", .string(fields.id)), ("Local key", .string(fields.localKey)), ("Title", .string(fields.title)),
                ("Download URL", .string(fields.acquisition.address)),
                ("Media type", .string(fields.acquisition.mediaType.mimeTypeForSnapshot)), ("Free", .boolean(fields.isFree)),
            ]
            if let date = fields.releaseDate { pairs.append(("Release date", .date(date))) }
            if let cover = fields.coverAddress { pairs.append(("Cover URL", .string(cover))) }
            if let size = fields.acquisition.size { pairs.append(("Size", .integer(size))) }
            if let digest = fields.acquisition.sha256 { pairs.append(("SHA256", .string(digest))) }
            if let summary = fields.summary { pairs.append(("Summary", .string(summary))) }
            if let price = fields.price { pairs.append(("Price", .string(price))) }
            if let authors = fields.authors { pairs.append(("Authors", .string(authors))) }
            issues.append(.dictionary(pairs))
        }
        var root: [(String, Value)] = []
        if let title = catalog.title { root.append(("Title", .string(title))) }
        root.append(("Issues", .array(issues)))
        return BinaryPropertyListWriter.data(.dictionary(root))
    }
}

extension MediaType {
    /// The media type written into a snapshot: one that reads back as this same type.
    var mimeTypeForSnapshot: String { self == .hpub ? "application/hpub+zip" : mimeType }
}
