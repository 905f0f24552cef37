import Foundation

/// A checked catalog written as a binary property list: how every catalog is cached once read.
///
/// A feed of many pages becomes one file. Nothing is lost on the way: each issue's local key is
/// written beside its ID (so that reading it back needs no hashing), and the catalog's other forms
/// of an issue under `Alternatives`. What was checked when the catalog was read is not checked
/// again in full when the copy is opened (``read(_:allowFiles:)``): only what keeps the disk
/// and the network safe — a valid local key, an allowed scheme, one entry per key. A copy that
/// fails any of it, or one an earlier version wrote, goes through the whole reader and validator.
public enum CatalogSnapshot {
    /// The catalog as a binary property list, each secret of `secrets` replaced by its stand-in.
    public static func data(of catalog: Catalog, masking secrets: [String] = []) -> Data {
        // Objects at most: per issue its dictionary and a value per key (keys are shared), per
        // other form an array slot, a dictionary and its values.
        let bound = 64 + catalog.entries.reduce(0) { $0 + 20 + 8 * $1.alternatives.count }
        // An issue of a feed like calibre's takes 394 bytes.
        var writer = BinaryPropertyListWriter(objectBound: bound, expectedBytes: catalog.entries.count * 400)
        var keys = Keys(&writer)
        var issues: [BinaryPropertyListWriter.Reference] = []
        issues.reserveCapacity(catalog.entries.count)
        var pairs = BinaryPropertyListWriter.Pairs()
        for entry in catalog.entries {
            // Each field read where the entry's box keeps it, not the fields copied out whole.
            let box = entry.box
            pairs.removeAll()
            pairs.add(keys.id, writer.string(box.fields.id))
            pairs.add(keys.localKey, writer.string(box.fields.localKey))
            pairs.add(keys.title, writer.string(box.fields.title))
            acquisition(box.fields.acquisition, masking: secrets, keys: &keys, into: &writer, &pairs)
            pairs.add(keys.free, box.fields.isFree ? keys.yes : keys.no)
            if let date = box.fields.releaseDate { pairs.add(keys.releaseDate, writer.date(date)) }
            if let cover = box.fields.coverAddress { pairs.add(keys.coverURL, writer.string(SecretMask.mask(cover, secrets: secrets))) }
            if let summary = box.fields.summary { pairs.add(keys.summary, writer.string(summary)) }
            if let price = box.fields.price { pairs.add(keys.price, writer.string(price)) }
            if let authors = box.fields.authors { pairs.add(keys.authors, writer.string(authors)) }
            if !box.fields.alternatives.isEmpty {
                var offers: [BinaryPropertyListWriter.Reference] = []
                for alternative in box.fields.alternatives {
                    var offer = BinaryPropertyListWriter.Pairs()
                    acquisition(alternative, masking: secrets, keys: &keys, into: &writer, &offer)
                    offers.append(writer.dictionary(offer))
                }
                pairs.add(keys.alternatives, writer.array(offers))
            }
            issues.append(writer.dictionary(pairs))
        }
        pairs.removeAll()
        pairs.add(keys.snapshot, writer.integer(version))
        if let title = catalog.title { pairs.add(keys.title, writer.string(title)) }
        pairs.add(keys.issues, writer.array(issues))
        return writer.finish(top: writer.dictionary(pairs))
    }

    /// The keys of a snapshot, and its two booleans, each written once.
    private struct Keys {
        typealias Reference = BinaryPropertyListWriter.Reference
        let id, localKey, title, downloadURL, mediaType, size, advertisedSize, sha256, webPage, free, releaseDate, coverURL: Reference
        let summary, price, authors, alternatives, snapshot, issues, yes, no: Reference

        init(_ writer: inout BinaryPropertyListWriter) {
            (id, localKey, title) = (writer.string("ID"), writer.string("Local key"), writer.string("Title"))
            (downloadURL, mediaType, size) = (writer.string("Download URL"), writer.string("Media type"), writer.string("Size"))
            (advertisedSize, sha256, webPage) = (writer.string("Advertised size"), writer.string("SHA256"), writer.string("Web page"))
            (free, releaseDate, coverURL) = (writer.string("Free"), writer.string("Release date"), writer.string("Cover URL"))
            (summary, price, authors) = (writer.string("Summary"), writer.string("Price"), writer.string("Authors"))
            (alternatives, snapshot, issues) = (writer.string("Alternatives"), writer.string("Snapshot"), writer.string("Issues"))
            (yes, no) = (writer.boolean(true), writer.boolean(false))
        }

        /// Each media type's text, written once. A catalog names one or two, so they are searched
        /// in order: a dictionary of them hashed a type's text (its raw value) at every lookup.
        private var mediaTypes: [(type: MediaType, reference: Reference)] = []

        mutating func mediaType(_ type: MediaType, into writer: inout BinaryPropertyListWriter) -> Reference {
            if let known = mediaTypes.first(where: { $0.type == type }) { return known.reference }
            let reference = writer.string(type.mimeTypeForSnapshot)
            mediaTypes.append((type, reference))
            return reference
        }
    }

    /// The form of the snapshot this version writes (the root's `Snapshot`).
    static let version: Int64 = 2

    /// The catalog a snapshot of this version holds, its entries as they were written; nil when
    /// the data is not one, or breaks a rule it was written under.
    static func read(_ data: Data, allowFiles: Bool, limits: CatalogLimits) -> Catalog? {
        guard data.starts(with: Array("bplist00".utf8)), data.count <= limits.maximumSize,
              let read = try? PropertyListFormat.readBinary(data, maximumDepth: limits.maximumDepth, snapshot: version, item: { fields, _ in
                  fields.flatMap { entry($0, allowFiles: allowFiles) }
              }),
              read.snapshotVersion == version else { return nil }
        var entries: [CatalogEntry] = []
        entries.reserveCapacity(read.items.count)
        for item in read.items {
            guard let entry = item else { return nil }
            entries.append(entry)
        }
        let catalog = Catalog(title: read.title, entries: entries)
        // One entry per local key, as every catalog is made.
        return catalog.positions.count == entries.count ? catalog : nil
    }

    private static func entry(_ fields: PropertyListFields, allowFiles: Bool) -> CatalogEntry? {
        guard case .string(let id)? = fields.id, !id.isEmpty, id.utf8.count <= 1024,
              case .string(let key)? = fields.localKey, LocalKey.isValid(key),
              case .string(let title)? = fields.title,
              let main = acquisition(fields.downloadURL, fields.mediaType, fields.size, fields.advertisedSize, fields.sha256, fields.webPage,
                                     allowFiles: allowFiles)
        else { return nil }
        var alternatives: [Acquisition] = []
        if case .array(let values)? = fields.alternatives {
            for case .dictionary(let offer) in values {
                guard let other = acquisition(offer["Download URL"], offer["Media type"], offer["Size"], offer["Advertised size"],
                                              offer["SHA256"], offer["Web page"], allowFiles: allowFiles) else { return nil }
                alternatives.append(other)
            }
        }
        var cover: String?
        if case .string(let address)? = fields.coverURL {
            guard address.hasPrefix("data:image/") || isAllowed(address, allowFiles: allowFiles) else { return nil }
            cover = address
        }
        var date: Date?
        if case .date(let value)? = fields.releaseDate { date = value }
        func text(_ value: PropertyListValue?) -> String? {
            if case .string(let string)? = value { return string }
            return nil
        }
        return CatalogEntry(CatalogEntry.Fields(
            id: id, localKey: key, title: title, releaseDate: date, coverAddress: cover, acquisition: main, alternatives: alternatives,
            isFree: fields.free == .boolean(true), summary: text(fields.summary), price: text(fields.price), authors: text(fields.authors)))
    }

    private static func acquisition(
        _ address: PropertyListValue?, _ type: PropertyListValue?, _ size: PropertyListValue?, _ advertised: PropertyListValue?,
        _ sha256: PropertyListValue?, _ webPage: PropertyListValue?, allowFiles: Bool
    ) -> Acquisition? {
        guard case .string(let address)? = address, isAllowed(address, allowFiles: allowFiles),
              case .string(let typeName)? = type, let mediaType = MediaType(mimeType: typeName) else { return nil }
        var bytes: Int64?
        if case .integer(let value)? = size ?? advertised {
            guard value >= 0 else { return nil }
            bytes = value
        }
        var digest: String?
        if case .string(let value)? = sha256 {
            guard value.utf8.count == 64 else { return nil }
            digest = value
        }
        return Acquisition(address: address, mediaType: mediaType, size: bytes, sha256: digest, sizeIsAdvisory: size == nil && advertised != nil,
                           throughWebPage: webPage == .boolean(true))
    }

    /// An address of a scheme newsstand fetches: http(s), or a file for a catalog on this machine.
    private static func isAllowed(_ address: String, allowFiles: Bool) -> Bool {
        let utf8 = address.utf8
        return utf8.starts(with: "https://".utf8) || utf8.starts(with: "http://".utf8) || (allowFiles && utf8.starts(with: "file:".utf8))
    }

    /// The keys of one way to get an issue, each handed to `add` with its value.
    private static func acquisition(
        _ acquisition: Acquisition, masking secrets: [String], keys: inout Keys, into writer: inout BinaryPropertyListWriter,
        _ pairs: inout BinaryPropertyListWriter.Pairs
    ) {
        pairs.add(keys.downloadURL, writer.string(SecretMask.mask(acquisition.address, secrets: secrets)))
        pairs.add(keys.mediaType, keys.mediaType(acquisition.mediaType, into: &writer))
        if let size = acquisition.size { pairs.add(acquisition.sizeIsAdvisory ? keys.advertisedSize : keys.size, writer.integer(size)) }
        if let digest = acquisition.sha256 { pairs.add(keys.sha256, writer.string(digest)) }
        if acquisition.throughWebPage { pairs.add(keys.webPage, keys.yes) }
    }
}
