import Foundation

/// The property-list catalog (XML or binary): `ID`, `Title`, `Release date`, `Cover URL`,
/// `Download URL`, `Free`, and the optional keys newsstand added.
///
/// Read by ``CatalogDecoder``, which checks entries as it reads them, on every core; the same
/// format keeps the cached copy of every other format once it is read (``CatalogSnapshot``).
public struct PropertyListFormat: CatalogFormat {
    public var decoder: CatalogDecoder

    public init(decoder: CatalogDecoder = CatalogDecoder()) {
        self.decoder = decoder
    }

    public var kind: CatalogFormatKind { .propertyList }

    public func recognition(contentType: String?, sniff: DocumentSniff) -> Recognition {
        switch sniff.shape {
        case .binaryPropertyList:
            return .certain
        case .xml(let root, _) where root == "plist":
            return .certain
        case .xml(let root, _) where root == "array" || root == "dict":
            // Apple's parser takes a property list without its <plist> wrapper, and so do we.
            return .byContent
        case .unknown:
            return contentType.map { $0.lowercased().contains("plist") } == true ? .byContentType : .no
        default:
            return .no
        }
    }

    /// The catalog, checked: property lists skip the page model.
    public func catalog(_ data: Data, url: URL) throws(NewsstandError) -> Catalog {
        try decoder.decode(data, baseURL: url)
    }

    /// One page holding the checked entries (for callers that want pages of every format).
    public func read(_ data: Data, url: URL, limits: FeedLimits) throws(NewsstandError) -> FeedPage {
        let catalog = try catalog(data, url: url)
        var page = FeedPage(format: .propertyList, url: url)
        page.title = catalog.title
        page.entries = catalog.entries.enumerated().map { index, entry in
            var item = FeedEntry(index: index)
            item.id = entry.id
            item.title = entry.title
            item.releaseDate = entry.releaseDate
            item.summary = entry.summary
            item.covers = entry.coverAddress.map { [$0] } ?? []
            item.isFree = entry.isFree
            item.acquisitions = entry.acquisitions.map {
                FeedAcquisition(address: $0.address, mediaType: $0.mediaType.mimeType, size: $0.size)
            }
            return item
        }
        return page
    }
}
