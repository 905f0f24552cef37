import Foundation

/// Wikimedia's picture-of-the-day feeds (Commons', Wikipedia's `featuredfeed&feed=potd`) name no
/// enclosure: each item's HTML shows a thumbnail from `upload.wikimedia.org`, whose path names
/// the original (`…/commons/thumb/a/ab/Name.jpg/300px-Name.jpg` → `…/commons/a/ab/Name.jpg`).
/// Only Wikimedia's thumbnails count: another blog's picture in a post does not make it an issue.
enum WikimediaPicture {
    /// The original picture and the thumbnail an item's HTML shows, when it shows one of
    /// Wikimedia's; an original that is not a JPEG, PNG or WebP (an SVG, a TIFF) gives way to
    /// its thumbnail.
    static func find(inHTML html: String) -> (picture: String, thumbnail: String)? {
        guard html.contains("upload.wikimedia.org"),
              let match = html.firstMatch(of: /(?:https?:)?\/\/upload\.wikimedia\.org\/wikipedia\/([a-z0-9-]+)\/thumb\/([0-9a-f])\/([0-9a-f]{2})\/([^\/"'\s<>]+)\/([^\/"'\s<>]+)/)
        else { return nil }
        let written = String(match.0)
        let thumbnail = written.hasPrefix("//") ? "https:" + written : written
        let original = "https://upload.wikimedia.org/wikipedia/\(match.1)/\(match.2)/\(match.3)/\(match.4)"
        let isPicture = MediaType(address: original)?.isPicture ?? false
        return (isPicture ? original : thumbnail, thumbnail)
    }

    /// Makes an item that offers nothing to download the picture its HTML elements (a
    /// description, a summary, a content) show, if it is Wikimedia's. Their text is read only then.
    static func adopt(_ html: [Int], of tree: XMLTree, into entry: inout FeedEntry) {
        guard entry.acquisitions.isEmpty, let found = html.lazy.compactMap({ find(inHTML: tree.text(of: $0)) }).first else { return }
        entry.acquisitions = [FeedAcquisition(address: found.picture, mediaType: nil)]
        if entry.covers.isEmpty { entry.covers = [found.thumbnail] }
    }
}
