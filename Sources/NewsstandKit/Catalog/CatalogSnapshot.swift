import Foundation

/// A checked catalog written as a binary property list: how every catalog is cached once read.
///
/// A feed of many pages becomes one file, read back by ``PropertyListFormat``'s parallel binary
/// reader and the same ``CatalogValidator`` as any catalog. Nothing is lost on the way: each
/// issue's local key is written beside its ID (so that reading it back needs no hashing), and the
/// catalog's other forms of an issue under `Alternatives`.
public enum CatalogSnapshot {
    typealias Value = BinaryPropertyListWriter.Value

    /// The catalog as a binary property list, each secret of `secrets` replaced by its stand-in.
    public static func data(of catalog: Catalog, masking secrets: [String] = []) -> Data {
        var issues: [Value] = []
        issues.reserveCapacity(catalog.entries.count)
        for entry in catalog.entries {
            let fields = entry.fields
            var pairs: [(String, Value)] = [("ID", .string(fields.id)), ("Local key", .string(fields.localKey)), ("Title", .string(fields.title))]
            pairs += acquisition(fields.acquisition, masking: secrets)
            pairs.append(("Free", .boolean(fields.isFree)))
            if let date = fields.releaseDate { pairs.append(("Release date", .date(date))) }
            if let cover = fields.coverAddress { pairs.append(("Cover URL", .string(SecretMask.mask(cover, secrets: secrets)))) }
            if let summary = fields.summary { pairs.append(("Summary", .string(summary))) }
            if let price = fields.price { pairs.append(("Price", .string(price))) }
            if let authors = fields.authors { pairs.append(("Authors", .string(authors))) }
            if !fields.alternatives.isEmpty {
                pairs.append(("Alternatives", .array(fields.alternatives.map { .dictionary(acquisition($0, masking: secrets)) })))
            }
            issues.append(.dictionary(pairs))
        }
        var root: [(String, Value)] = []
        if let title = catalog.title { root.append(("Title", .string(title))) }
        root.append(("Issues", .array(issues)))
        return BinaryPropertyListWriter.data(.dictionary(root))
    }

    /// The keys of one way to get an issue.
    private static func acquisition(_ acquisition: Acquisition, masking secrets: [String]) -> [(String, Value)] {
        var pairs: [(String, Value)] = [
            ("Download URL", .string(SecretMask.mask(acquisition.address, secrets: secrets))),
            ("Media type", .string(acquisition.mediaType.mimeTypeForSnapshot)),
        ]
        if let size = acquisition.size { pairs.append((acquisition.sizeIsAdvisory ? "Advertised size" : "Size", .integer(size))) }
        if let digest = acquisition.sha256 { pairs.append(("SHA256", .string(digest))) }
        if acquisition.throughWebPage { pairs.append(("Web page", .boolean(true))) }
        return pairs
    }
}
