import Foundation

/// A checked catalog written as a binary property list: how a feed is cached once read.
///
/// A feed of many pages becomes one file, read back by ``CatalogDecoder``'s parallel binary
/// reader and so opened offline as fast as a property-list catalog (the feed's search link is
/// kept in the cache's info).
public enum CatalogSnapshot {
    /// The catalog as a binary property list, each issue's local key written beside its ID so
    /// that reading it back needs no hashing.
    public static func data(of catalog: Catalog, masking secrets: [String] = []) throws(NewsstandError) -> Data {
        typealias Value = BinaryPropertyListWriter.Value
        // A secret inside the links (Kavita's key in every path) is not written to the disk.
        func masked(_ address: String) -> String { mask(address, secrets: secrets) }
        var issues: [Value] = []
        issues.reserveCapacity(catalog.entries.count)
        for entry in catalog.entries {
            let fields = entry.fields
            var pairs: [(String, Value)] = [
                ("ID", .string(fields.id)), ("Local key", .string(fields.localKey)), ("Title", .string(fields.title)),
                ("Download URL", .string(masked(fields.acquisition.address))),
                ("Media type", .string(fields.acquisition.mediaType.mimeTypeForSnapshot)), ("Free", .boolean(fields.isFree)),
            ]
            if let date = fields.releaseDate { pairs.append(("Release date", .date(date))) }
            if let cover = fields.coverAddress { pairs.append(("Cover URL", .string(masked(cover)))) }
            if let size = fields.acquisition.size { pairs.append((fields.acquisition.sizeIsAdvisory ? "Advertised size" : "Size", .integer(size))) }
            if let digest = fields.acquisition.sha256 { pairs.append(("SHA256", .string(digest))) }
            if fields.acquisition.throughWebPage { pairs.append(("Web page", .boolean(true))) }
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

    /// `text` with each secret replaced by its stand-in.
    public static func mask(_ text: String, secrets: [String]) -> String {
        guard !secrets.isEmpty else { return text }
        var result = text
        for (index, secret) in secrets.enumerated() where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: placeholder(index))
        }
        return result
    }

    /// `text` with its stand-ins replaced by the secrets; nil when one has no secret.
    public static func unmask(_ text: String, secrets: [String]) -> String? {
        let marker = "newsstand-masked-secret-"
        guard text.contains(marker) else { return text }
        var result = text
        for (index, secret) in secrets.enumerated() { result = result.replacingOccurrences(of: placeholder(index), with: secret) }
        return result.contains(marker) ? nil : result
    }

    /// What stands for the secret at `index` in a snapshot: letters, digits and `-`, which every
    /// part of a URL takes as they are.
    static func placeholder(_ index: Int) -> String { "newsstand-masked-secret-\(index)" }

    /// Puts the secrets back into a snapshot's links; false when a placeholder has no secret
    /// (the subscription's URL changed since), and the copy should not be used.
    public static func unmask(_ catalog: inout Catalog, secrets: [String]) -> Bool {
        func unmasked(_ address: String) -> String? { unmask(address, secrets: secrets) }
        for position in catalog.entries.indices {
            var entry = catalog.entries[position]
            guard let download = unmasked(entry.acquisition.address) else { return false }
            if download != entry.acquisition.address { entry[dynamicMember: \.acquisition].address = download }
            if let cover = entry.coverAddress {
                guard let restored = unmasked(cover) else { return false }
                if restored != cover { entry.coverAddress = restored }
            }
            catalog.entries[position] = entry
        }
        return true
    }
}

extension MediaType {
    /// The media type written into a snapshot: one that reads back as this same type.
    var mimeTypeForSnapshot: String { self == .hpub ? "application/hpub+zip" : mimeType }
}
