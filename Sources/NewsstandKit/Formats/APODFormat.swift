import Foundation

/// NASA's Astronomy Picture of the Day as its API answers (`api.nasa.gov/planetary/apod`, one day
/// as an object, several as an array): each day's picture an issue, its own cover. Days whose
/// `media_type` is not `image` (a video) have nothing to download.
public struct APODFormat: CatalogFormat {
    public init() {}

    public var kind: CatalogFormatKind { .apod }

    public func recognition(contentType: String?, sniff: DocumentSniff) -> Recognition {
        let keys: [String]
        switch sniff.shape {
        case .jsonObject(let objectKeys): keys = objectKeys
        case .jsonArray: keys = sniff.firstElementKeys
        default: return .no
        }
        guard keys.contains("media_type"), keys.contains("date"), keys.contains("url") || keys.contains("hdurl") else { return .no }
        let typed = contentType.map { $0.lowercased().contains("json") } ?? false
        return typed ? .certain : .byContent
    }

    public func read(_ data: Data, url: URL, limits: CatalogLimits) throws(NewsstandError) -> FeedPage {
        let root = try JSONFeed.parse(data, limits: limits)
        let days: [Any]
        if let list = root as? [Any] { days = list } else if let one = root as? [String: Any] { days = [one] } else {
            throw NewsstandError.invalidCatalog("is JSON but not NASA's picture of the day.")
        }
        var page = FeedPage(format: .apod, url: url)
        page.title = "Astronomy Picture of the Day"
        for (index, value) in days.enumerated() {
            guard let day = value as? [String: Any], JSONFeed.string(day["media_type"]) == "image",
                  let written = JSONFeed.string(day["hdurl"]) ?? JSONFeed.string(day["url"]),
                  let address = XMLFeed.resolve(written, against: url) else {
                page.itemsWithoutDownload += 1
                continue
            }
            var entry = FeedEntry(index: index)
            entry.id = JSONFeed.string(day["date"]) ?? written
            entry.title = JSONFeed.string(day["title"])
            entry.summary = JSONFeed.string(day["explanation"])
            entry.releaseDate = JSONFeed.string(day["date"]).flatMap(FeedDate.iso8601)
            entry.authors = JSONFeed.string(day["copyright"]).map { [$0] } ?? []
            entry.acquisitions = [FeedAcquisition(address: address, mediaType: nil)]
            // The standard picture is the cover; the large one the issue.
            entry.covers = JSONFeed.string(day["url"]).flatMap { XMLFeed.resolve($0, against: url) }.map { [$0] } ?? []
            page.entries.append(entry)
        }
        return page
    }
}
