import Foundation

/// Writes a published folder's issues in every format newsstand reads: the property list of the
/// seed, OPDS 1.2 (a navigation root and paged acquisition feeds), OPDS 2.0, RSS 2.0 with
/// enclosures and JSON Feed 1.1. The same issues give the same bytes: nothing in them depends on
/// when they were written.
struct CatalogWriter {
    let title: String
    let language: String?
    let baseURL: URL
    /// Newest first.
    let issues: [PublishedIssue]
    /// Entries in one OPDS 1.2 acquisition feed, the next page linked after.
    let pageSize: Int

    /// The file names and their contents.
    func documents() -> [(name: String, data: Data)] {
        var documents = [("catalog.plist", propertyList()), ("opds.json", opds2()), ("feed.rss", rss()), ("feed.json", jsonFeed())]
        documents.append(("opds-root.xml", Data(opdsRoot().utf8)))
        let pages = stride(from: 0, to: max(1, issues.count), by: pageSize).map { Array(issues[$0..<min(issues.count, $0 + pageSize)]) }
        for (index, page) in pages.enumerated() {
            documents.append((Self.pageName(index), Data(opdsPage(page, index: index, last: index == pages.count - 1).utf8)))
        }
        return documents.map { (name: $0.0, data: $0.1) }
    }

    static func pageName(_ index: Int) -> String { index == 0 ? "opds.xml" : "opds-\(index + 1).xml" }

    /// The address of a file of the folder: each name percent-encoded whole, so that no name
    /// becomes a path of its own or a query (`covers/` is the only folder, and it is ours).
    func address(_ file: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        let encoded = file.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? String($0) }.joined(separator: "/")
        let base = baseURL.absoluteString.hasSuffix("/") ? baseURL.absoluteString : baseURL.absoluteString + "/"
        return base + encoded
    }

    /// The newest issue's date: the feeds' "updated", never the time they were written.
    private var updated: Date { issues.map(\.metadata.date).max() ?? Date(timeIntervalSince1970: 0) }

    // MARK: Property list

    private func propertyList() -> Data {
        let entries: [[String: Any]] = issues.map { issue in
            var entry: [String: Any] = [
                "ID": issue.id, "Title": issue.metadata.title, "Release date": issue.metadata.date, "Download URL": address(issue.file),
                "Free": issue.free, "Size": issue.size, "SHA256": issue.sha256, "Media type": issue.mediaType,
            ]
            if let cover = issue.cover { entry["Cover URL"] = address(cover) }
            if let summary = issue.metadata.summary { entry["Summary"] = summary }
            return entry
        }
        // Keys are written sorted: the same issues give the same bytes.
        return (try? PropertyListSerialization.data(fromPropertyList: ["Title": title, "Issues": entries], format: .xml, options: 0)) ?? Data()
    }

    // MARK: OPDS 1.2

    private static let acquisitionType = "application/atom+xml;profile=opds-catalog;kind=acquisition"

    private func opdsRoot() -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<feed xmlns="http://www.w3.org/2005/Atom">"#,
            "  <id>\(xml(address("opds-root.xml")))</id>",
            "  <title>\(xml(title))</title>",
            "  <updated>\(Formatting.timestamp(updated))</updated>",
            #"  <link rel="self" href="\#(xml(address("opds-root.xml")))" type="application/atom+xml;profile=opds-catalog;kind=navigation"/>"#,
            #"  <link rel="start" href="\#(xml(address("opds-root.xml")))" type="application/atom+xml;profile=opds-catalog;kind=navigation"/>"#,
            "  <entry>",
            "    <title>All issues</title>",
            "    <id>\(xml(address("opds.xml")))</id>",
            "    <updated>\(Formatting.timestamp(updated))</updated>",
            "    <content type=\"text\">\(Formatting.count(issues.count, "issue")), newest first</content>",
            #"    <link rel="subsection" href="\#(xml(address("opds.xml")))" type="\#(Self.acquisitionType)"/>"#,
            "  </entry>",
            "</feed>",
            "",
        ]
        if issues.isEmpty { lines.removeSubrange(7...13) }
        return lines.joined(separator: "\n")
    }

    private func opdsPage(_ page: [PublishedIssue], index: Int, last: Bool) -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<feed xmlns="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/terms/" xmlns:opds="http://opds-spec.org/2010/catalog">"#,
            "  <id>\(xml(address("opds.xml")))</id>",
            "  <title>\(xml(title))</title>",
            "  <updated>\(Formatting.timestamp(updated))</updated>",
            #"  <link rel="self" href="\#(xml(address(Self.pageName(index))))" type="\#(Self.acquisitionType)"/>"#,
            #"  <link rel="start" href="\#(xml(address("opds-root.xml")))" type="application/atom+xml;profile=opds-catalog;kind=navigation"/>"#,
        ]
        if !last {
            lines.append(#"  <link rel="next" href="\#(xml(address(Self.pageName(index + 1))))" type="\#(Self.acquisitionType)"/>"#)
        }
        if let language { lines.append("  <dc:language>\(xml(language))</dc:language>") }
        for issue in page {
            lines += [
                "  <entry>",
                "    <title>\(xml(issue.metadata.title))</title>",
                "    <id>urn:newsstand:\(xml(issue.id))</id>",
                "    <updated>\(Formatting.timestamp(issue.metadata.date))</updated>",
                "    <dc:issued>\(Formatting.timestamp(issue.metadata.date))</dc:issued>",
            ]
            if let summary = issue.metadata.summary { lines.append("    <summary type=\"text\">\(xml(summary))</summary>") }
            if let cover = issue.cover {
                let type = Self.imageType(cover)
                lines.append(#"    <link rel="http://opds-spec.org/image" href="\#(xml(address(cover)))" type="\#(type)"/>"#)
                lines.append(#"    <link rel="http://opds-spec.org/image/thumbnail" href="\#(xml(address(cover)))" type="\#(type)"/>"#)
            }
            let rel = issue.free ? "http://opds-spec.org/acquisition/open-access" : "http://opds-spec.org/acquisition/buy"
            lines.append(#"    <link rel="\#(rel)" href="\#(xml(address(issue.file)))" type="\#(issue.mediaType)" length="\#(issue.size)"/>"#)
            lines.append("  </entry>")
        }
        lines += ["</feed>", ""]
        return lines.joined(separator: "\n")
    }

    // MARK: OPDS 2.0

    private func opds2() -> Data {
        let publications: [[String: Any]] = issues.map { issue in
            var metadata: [String: Any] = ["@type": "http://schema.org/Periodical", "identifier": "urn:newsstand:" + issue.id,
                                           "title": issue.metadata.title, "published": Formatting.timestamp(issue.metadata.date)]
            if let summary = issue.metadata.summary { metadata["description"] = summary }
            var publication: [String: Any] = [
                "metadata": metadata,
                "links": [["rel": issue.free ? "http://opds-spec.org/acquisition/open-access" : "http://opds-spec.org/acquisition/buy",
                           "href": address(issue.file), "type": issue.mediaType]],
            ]
            if let cover = issue.cover { publication["images"] = [["href": address(cover), "type": Self.imageType(cover)]] }
            return publication
        }
        var metadata: [String: Any] = ["title": title]
        if let language { metadata["language"] = language }
        let root: [String: Any] = [
            "metadata": metadata,
            "links": [["rel": "self", "href": address("opds.json"), "type": "application/opds+json"]],
            "publications": publications,
        ]
        return Self.json(root)
    }

    // MARK: RSS 2.0

    private func rss() -> Data {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/">"#,
            "  <channel>",
            "    <title>\(xml(title))</title>",
            "    <link>\(xml(baseURL.absoluteString))</link>",
            "    <description>\(xml(title)): \(Formatting.count(issues.count, "issue"))</description>",
            "    <lastBuildDate>\(Self.rfc822(updated))</lastBuildDate>",
        ]
        if let language { lines.append("    <language>\(xml(language))</language>") }
        for issue in issues {
            lines += [
                "    <item>",
                "      <title>\(xml(issue.metadata.title))</title>",
                "      <guid isPermaLink=\"false\">urn:newsstand:\(xml(issue.id))</guid>",
                "      <pubDate>\(Self.rfc822(issue.metadata.date))</pubDate>",
            ]
            if let summary = issue.metadata.summary { lines.append("      <description>\(xml(summary))</description>") }
            lines.append(#"      <enclosure url="\#(xml(address(issue.file)))" length="\#(issue.size)" type="\#(issue.mediaType)"/>"#)
            if let cover = issue.cover { lines.append(#"      <media:thumbnail url="\#(xml(address(cover)))"/>"#) }
            lines.append("    </item>")
        }
        lines += ["  </channel>", "</rss>", ""]
        return Data(lines.joined(separator: "\n").utf8)
    }

    // MARK: JSON Feed 1.1

    private func jsonFeed() -> Data {
        let items: [[String: Any]] = issues.map { issue in
            var item: [String: Any] = [
                "id": "urn:newsstand:" + issue.id, "title": issue.metadata.title, "date_published": Formatting.timestamp(issue.metadata.date),
                "attachments": [["url": address(issue.file), "mime_type": issue.mediaType, "size_in_bytes": issue.size]],
            ]
            if let summary = issue.metadata.summary { item["summary"] = summary }
            if let cover = issue.cover { item["image"] = address(cover) }
            return item
        }
        var root: [String: Any] = ["version": "https://jsonfeed.org/version/1.1", "title": title, "feed_url": address("feed.json"), "items": items]
        if let language { root["language"] = language }
        return Self.json(root)
    }

    // MARK: Text

    private static func json(_ object: Any) -> Data {
        ((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])) ?? Data()) + Data("\n".utf8)
    }

    private func xml(_ text: String) -> String { XMLText.escaped(text) }

    static func imageType(_ name: String) -> String {
        switch (name as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        default: return "image/png"
        }
    }

    /// RFC 822 dates in UTC, written by hand: a formatter made per item cost more than the feed.
    private static func rfc822(_ date: Date) -> String {
        let stamp = Formatting.timestamp(date)  // 2026-01-05T08:30:00Z
        guard stamp.count == 20, let year = Int(stamp.prefix(4)), let month = Int(stamp.dropFirst(5).prefix(2)),
              let day = Int(stamp.dropFirst(8).prefix(2))
        else { return stamp }
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        // Days since 1970-01-01, a Thursday.
        let weekday = ((Int((date.timeIntervalSince1970 / 86_400).rounded(.down)) % 7) + 11) % 7
        let time = stamp.dropFirst(11).prefix(8)
        return "\(days[weekday]), \(day < 10 ? "0" : "")\(day) \(months[month - 1]) \(year) \(time) +0000"
    }
}
