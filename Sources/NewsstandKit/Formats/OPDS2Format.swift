import Foundation

/// OPDS 2.0 feeds (JSON): `publications`, `navigation` and `groups`, with the OPDS 1 relation
/// URIs that real feeds mix in.
public struct OPDS2Format: CatalogFormat {
    public init() {}

    public var kind: CatalogFormatKind { .opds2 }

    public func recognition(contentType: String?, sniff: DocumentSniff) -> Recognition {
        let typed = contentType.map { $0.lowercased().contains("opds+json") } ?? false
        var shaped = false
        if case .jsonObject(let keys) = sniff.shape {
            shaped = keys.contains("metadata") && (keys.contains("publications") || keys.contains("navigation") || keys.contains("groups") || keys.contains("links"))
        }
        return Recognition(typed: typed, shaped: shaped, sniff: sniff)
    }

    public func read(_ data: Data, url: URL, limits: CatalogLimits) throws(NewsstandError) -> FeedPage {
        guard let root = try JSONFeed.parse(data, limits: limits) as? [String: Any] else {
            throw NewsstandError.invalidCatalog("is JSON but not an OPDS 2 feed (its root is not an object).")
        }
        var page = FeedPage(format: .opds2, url: url)
        let metadata = root["metadata"] as? [String: Any]
        page.title = JSONFeed.text(metadata?["title"])
        readLinks(root["links"], url: url, into: &page)
        var index = 0
        read(collection: root, url: url, index: &index, into: &page)
        for case let group as [String: Any] in root["groups"] as? [Any] ?? [] {
            read(collection: group, url: url, index: &index, into: &page)
        }
        return page
    }

    private func read(collection: [String: Any], url: URL, index: inout Int, into page: inout FeedPage) {
        for case let publication as [String: Any] in collection["publications"] as? [Any] ?? [] {
            if let entry = read(publication: publication, index: index, templated: &page.templatedLinks) {
                page.entries.append(entry)
            } else {
                page.itemsWithoutDownload += 1
            }
            index += 1
        }
        for case let link as [String: Any] in collection["navigation"] as? [Any] ?? [] {
            guard let href = JSONFeed.string(link["href"]), let address = XMLFeed.resolve(href, against: url) else { continue }
            let type = JSONFeed.string(link["type"])?.lowercased() ?? ""
            let isAcquisition: Bool? = type.contains("kind=acquisition") ? true : type.contains("kind=navigation") ? false : nil
            page.navigation.append(FeedLink(title: JSONFeed.text(link["title"]) ?? address, address: address, isAcquisitionFeed: isAcquisition))
        }
    }

    private func readLinks(_ value: Any?, url: URL, into page: inout FeedPage) {
        for case let link as [String: Any] in value as? [Any] ?? [] {
            guard let href = JSONFeed.string(link["href"]) else { continue }
            let rels = JSONFeed.rels(link["rel"])
            // A template other than search's (`{authentication_token}`, `{id}`) needs values this
            // client does not have: left out and counted, never fetched with `%7B…%7D` in it.
            if link["templated"] as? Bool == true, !rels.contains("search") {
                page.templatedLinks += 1
                continue
            }
            if rels.contains("next") {
                page.next = XMLFeed.resolve(href, against: url)
            } else if rels.contains("search"), let address = XMLFeed.resolve(href, against: url) {
                let type = JSONFeed.string(link["type"])?.lowercased() ?? ""
                if type.contains("opensearchdescription") {
                    if page.search == nil { page.search = .description(address) }
                } else if href.contains("{") {
                    page.search = .template(address)
                }
            }
        }
    }

    private func read(publication: [String: Any], index: Int, templated: inout Int) -> FeedEntry? {
        var entry = FeedEntry(index: index)
        let metadata = publication["metadata"] as? [String: Any] ?? [:]
        entry.id = JSONFeed.string(metadata["identifier"]) ?? JSONFeed.string(metadata["@id"])
        entry.title = JSONFeed.text(metadata["title"])
        entry.releaseDate = (JSONFeed.string(metadata["published"]) ?? JSONFeed.string(metadata["modified"])).flatMap(FeedDate.iso8601)
        entry.summary = JSONFeed.string(metadata["description"]).map { XMLText.trimmed(XMLText.decode(ArraySlice($0.utf8))) }
        entry.authors = JSONFeed.names(metadata["author"])
        for case let link as [String: Any] in publication["links"] as? [Any] ?? [] {
            guard let href = JSONFeed.string(link["href"]) else { continue }
            let rels = JSONFeed.rels(link["rel"])
            let properties = link["properties"] as? [String: Any] ?? [:]
            if link["templated"] as? Bool == true {
                templated += 1
                continue
            }
            var access: FeedAcquisition.Access?
            for rel in rels {
                switch rel {
                case "http://opds-spec.org/acquisition", "acquisition": access = access ?? .acquire
                case "http://opds-spec.org/acquisition/open-access", "open-access": access = .openAccess
                case "http://opds-spec.org/acquisition/buy", "buy", "http://opds-spec.org/acquisition/borrow", "borrow",
                     "http://opds-spec.org/acquisition/subscribe", "subscribe":
                    access = access ?? .paid
                case "http://opds-spec.org/acquisition/sample", "sample", "http://opds-spec.org/acquisition/preview", "preview":
                    access = access ?? .sample
                case "http://opds-spec.org/image", "cover", "http://opds-spec.org/image/thumbnail":
                    entry.covers.append(href)
                default: break
                }
            }
            guard let access else { continue }
            var mediaType = JSONFeed.string(link["type"])
            var throughWebPage = false
            let indirect = innermostType(properties["indirectAcquisition"])
            if mediaType == nil || mediaType.map({ MediaType(mimeType: $0) == nil }) == true, let indirect,
               mediaType == nil || mediaType!.lowercased().hasPrefix("application/octet-stream") {
                mediaType = indirect
            } else if let indirect, let outer = mediaType, FeedAcquisition.isWebPage(outer), MediaType(mimeType: indirect) != nil {
                mediaType = indirect
                throughWebPage = true
            }
            var price: String?
            if let priceObject = properties["price"] as? [String: Any], let value = JSONFeed.number(priceObject["value"]) {
                price = String(format: "%.2f", value) + (JSONFeed.string(priceObject["currency"]).map { " " + $0 } ?? "")
            }
            entry.acquisitions.append(FeedAcquisition(address: href, mediaType: mediaType, size: JSONFeed.size(properties["size"] ?? link["length"]),
                                                      access: access, price: price, throughWebPage: throughWebPage))
        }
        // `images`: the smallest one that says its width, else the first.
        let images = (publication["images"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }
        let sized = images.filter { JSONFeed.number($0["width"]) != nil }.sorted { JSONFeed.number($0["width"])! < JSONFeed.number($1["width"])! }
        for image in sized + images {
            if let href = JSONFeed.string(image["href"]), !entry.covers.contains(href) { entry.covers.append(href) }
        }
        guard !entry.acquisitions.isEmpty else { return nil }
        if entry.id == nil { entry.id = entry.acquisitions[0].address }
        return entry
    }

    /// `[{type, child: [{type, …}]}]`: the innermost type of the first chain, or a type no reader
    /// here opens when the chain passes through DRM (an Adobe ACSM ticket, LCP).
    private func innermostType(_ value: Any?, depth: Int = 0) -> String? {
        guard depth < 8, let first = (value as? [Any])?.first as? [String: Any] else { return nil }
        let type = JSONFeed.string(first["type"])
        if let type, FeedDRM.isProtected(type) { return type }
        return innermostType(first["child"], depth: depth + 1) ?? type
    }
}
