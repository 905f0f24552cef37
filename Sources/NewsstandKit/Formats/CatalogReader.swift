import Foundation

/// Recognises a catalog document's format and reads it, within one set of limits.
public struct CatalogReader: Sendable {
    public var limits: CatalogLimits

    public init(limits: CatalogLimits = CatalogLimits()) {
        self.limits = limits
    }

    /// Every format, the property list first (it wins a tie: it was here first).
    public static let formats: [any CatalogFormat] = [
        PropertyListFormat(), AtomFeedFormat(), RSSFeedFormat(), OPDS2Format(), BingImageArchiveFormat(), APODFormat(), BakerShelfFormat(), JSONFeedFormat(),
    ]

    /// What the `Accept` header of a catalog request names: the formats read here, best first.
    public static let acceptHeader = "application/atom+xml;profile=opds-catalog, application/opds+json, application/atom+xml, "
        + "application/rss+xml, application/feed+json, application/x-plist, application/json;q=0.9, application/xml;q=0.8, text/xml;q=0.8, */*;q=0.5"

    /// The format of a document: by its first bytes and its Content-Type together, since servers
    /// send feeds as `text/html`, `application/xml` or `application/json`.
    public func format(of data: Data, contentType: String?) throws(NewsstandError) -> any CatalogFormat {
        let sniff = DocumentSniff(data)
        var best: (format: any CatalogFormat, recognition: Recognition)?
        for format in Self.formats {
            let recognition = format.recognition(contentType: contentType, sniff: sniff)
            if recognition > (best?.recognition ?? .no) { best = (format, recognition) }
        }
        if let best { return best.format }
        throw Self.unrecognised(sniff, contentType: contentType, empty: data.isEmpty)
    }

    private static func unrecognised(_ sniff: DocumentSniff, contentType: String?, empty: Bool) -> NewsstandError {
        let known = "a property list, OPDS 1.2 or 2.0, Atom, RSS 2.0, JSON Feed, Baker's shelf.json, Bing's image archive or NASA's APOD"
        let what: String
        switch sniff.shape {
        case _ where empty: what = "empty"
        case .xml(let root, _) where root.lowercased() == "html": what = "a web page (HTML), not a feed"
        case .xml(let root, _): what = "XML with a <\(TextSanitizer.inert(String(root.prefix(40))))> root, which is none of \(known)"
        case .jsonObject, .jsonArray: what = "JSON, but not an OPDS 2 feed, a JSON Feed, a Baker shelf, Bing's image archive or NASA's APOD"
        default:
            if contentType?.lowercased().contains("html") == true { what = "a web page (HTML), not a feed" }
            else { what = "in no format newsstand reads (\(known))" }
        }
        return NewsstandError.invalidCatalog("is \(what).")
    }

    /// One document read as a page of its format.
    public func page(_ data: Data, url: URL, contentType: String?) throws(NewsstandError) -> FeedPage {
        try limits.checkSize(of: data)
        let data = try DocumentEncoding.utf8(data, contentType: contentType)
        return try format(of: data, contentType: contentType).read(data, url: url, limits: limits)
    }

    /// One document read and checked: a catalog of a single page. `file` URLs in it are followed
    /// only when `url` is itself a file, that is a catalog the user named on this machine.
    public func catalog(_ data: Data, url: URL, contentType: String? = nil) throws(NewsstandError) -> Catalog {
        CatalogValidator(limits: limits, allowFiles: url.isFileURL).catalog(from: [try page(data, url: url, contentType: contentType)])
    }
}
