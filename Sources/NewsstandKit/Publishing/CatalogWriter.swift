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
    /// Each issue's file and cover addresses, made once for every format.
    private let links: [(file: String, cover: String?)]
    private let base: String

    init(title: String, language: String?, baseURL: URL, issues: [PublishedIssue], pageSize: Int) {
        self.title = title
        self.language = language
        self.baseURL = baseURL
        self.issues = issues
        self.pageSize = pageSize
        let base = baseURL.absoluteString.hasSuffix("/") ? baseURL.absoluteString : baseURL.absoluteString + "/"
        self.base = base
        links = issues.map { issue in (Self.address(issue.file, base: base), issue.cover.map { Self.address($0, base: base) }) }
    }

    /// The file names and their contents.
    func documents() -> [(name: String, data: Data)] {
        var documents = [("catalog.plist", propertyList()), ("opds.json", opds2()), ("feed.rss", rss()), ("feed.json", jsonFeed())]
        documents.append(("opds-root.xml", Data(opdsRoot().utf8)))
        let pages = stride(from: 0, to: max(1, issues.count), by: pageSize).map { $0..<min(issues.count, $0 + pageSize) }
        for (index, page) in pages.enumerated() {
            documents.append((Self.pageName(index), Data(opdsPage(page, index: index, last: index == pages.count - 1).utf8)))
        }
        return documents.map { (name: $0.0, data: $0.1) }
    }

    static func pageName(_ index: Int) -> String { index == 0 ? "opds.xml" : "opds-\(index + 1).xml" }

    /// The address of a file of the folder.
    func address(_ file: String) -> String { Self.address(file, base: base) }

    /// Each name percent-encoded whole (all but letters, digits and `-._~`), so that no name
    /// becomes a path of its own or a query (`covers/` is the only folder, and it is ours).
    static func address(_ file: String, base: String) -> String {
        var bytes = Array(base.utf8)
        bytes.reserveCapacity(bytes.count + file.utf8.count * 3)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in file.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The newest issue's date: the feeds' "updated", never the time they were written.
    private var updated: Date { issues.map(\.metadata.date).max() ?? Date(timeIntervalSince1970: 0) }

    // MARK: Property list

    /// Written by hand, keys sorted as Apple's writer sorts them: PropertyListSerialization took
    /// a second for 10,000 issues.
    private func propertyList() -> Data {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>Issues</key>
            \t<array>

            """
        text.reserveCapacity(issues.count * 700)
        func field(_ key: String, _ value: String) { text += "\t\t\t<key>\(key)</key>\n\t\t\t\(value)\n" }
        for (issue, link) in zip(issues, links) {
            text += "\t\t<dict>\n"
            if let cover = link.cover { field("Cover URL", "<string>\(xml(cover))</string>") }
            field("Download URL", "<string>\(xml(link.file))</string>")
            field("Free", issue.free ? "<true/>" : "<false/>")
            field("ID", "<string>\(xml(issue.id))</string>")
            field("Media type", "<string>\(xml(issue.mediaType))</string>")
            field("Release date", "<date>\(Formatting.timestamp(issue.metadata.date))</date>")
            field("SHA256", "<string>\(issue.sha256)</string>")
            field("Size", "<integer>\(issue.size)</integer>")
            if let summary = issue.metadata.summary { field("Summary", "<string>\(xml(summary))</string>") }
            field("Title", "<string>\(xml(issue.metadata.title))</string>")
            text += "\t\t</dict>\n"
        }
        text += "\t</array>\n\t<key>Title</key>\n\t<string>\(xml(title))</string>\n</dict>\n</plist>\n"
        return Data(text.utf8)
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

    private func opdsPage(_ page: Range<Int>, index: Int, last: Bool) -> String {
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
        for position in page {
            let (issue, link) = (issues[position], links[position])
            lines += [
                "  <entry>",
                "    <title>\(xml(issue.metadata.title))</title>",
                "    <id>urn:newsstand:\(xml(issue.id))</id>",
                "    <updated>\(Formatting.timestamp(issue.metadata.date))</updated>",
                "    <dc:issued>\(Formatting.timestamp(issue.metadata.date))</dc:issued>",
            ]
            if let summary = issue.metadata.summary { lines.append("    <summary type=\"text\">\(xml(summary))</summary>") }
            if let cover = issue.cover, let address = link.cover {
                let type = Self.imageType(cover)
                lines.append(#"    <link rel="http://opds-spec.org/image" href="\#(xml(address))" type="\#(type)"/>"#)
                lines.append(#"    <link rel="http://opds-spec.org/image/thumbnail" href="\#(xml(address))" type="\#(type)"/>"#)
            }
            let rel = issue.free ? "http://opds-spec.org/acquisition/open-access" : "http://opds-spec.org/acquisition/buy"
            lines.append(#"    <link rel="\#(rel)" href="\#(xml(link.file))" type="\#(issue.mediaType)" length="\#(issue.size)"/>"#)
            lines.append("  </entry>")
        }
        lines += ["</feed>", ""]
        return lines.joined(separator: "\n")
    }

    // MARK: OPDS 2.0

    private func opds2() -> Data {
        var json = JSONWriter(capacity: issues.count * 600)
        json.beginObject()
        json.key("links")
        json.beginArray()
        json.beginObject()
        json.field("href", address("opds.json"))
        json.field("rel", "self")
        json.field("type", "application/opds+json")
        json.endObject()
        json.endArray()
        json.key("metadata")
        json.beginObject()
        json.field("language", language)
        json.field("title", title)
        json.endObject()
        json.key("publications")
        json.beginArray()
        for (issue, link) in zip(issues, links) {
            json.beginObject()
            if let cover = issue.cover, let address = link.cover {
                json.key("images")
                json.beginArray()
                json.beginObject()
                json.field("href", address)
                json.field("type", Self.imageType(cover))
                json.endObject()
                json.endArray()
            }
            json.key("links")
            json.beginArray()
            json.beginObject()
            json.field("href", link.file)
            json.field("rel", issue.free ? "http://opds-spec.org/acquisition/open-access" : "http://opds-spec.org/acquisition/buy")
            json.field("type", issue.mediaType)
            json.endObject()
            json.endArray()
            json.key("metadata")
            json.beginObject()
            json.field("@type", "http://schema.org/Periodical")
            json.field("description", issue.metadata.summary)
            json.field("identifier", "urn:newsstand:" + issue.id)
            json.key("published")
            json.timestamp(issue.metadata.date)
            json.field("title", issue.metadata.title)
            json.endObject()
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return Data(json.bytes + [0x0A])
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
        for (issue, link) in zip(issues, links) {
            lines += [
                "    <item>",
                "      <title>\(xml(issue.metadata.title))</title>",
                "      <guid isPermaLink=\"false\">urn:newsstand:\(xml(issue.id))</guid>",
                "      <pubDate>\(Self.rfc822(issue.metadata.date))</pubDate>",
            ]
            if let summary = issue.metadata.summary { lines.append("      <description>\(xml(summary))</description>") }
            lines.append(#"      <enclosure url="\#(xml(link.file))" length="\#(issue.size)" type="\#(issue.mediaType)"/>"#)
            if let cover = link.cover { lines.append(#"      <media:thumbnail url="\#(xml(cover))"/>"#) }
            lines.append("    </item>")
        }
        lines += ["  </channel>", "</rss>", ""]
        return Data(lines.joined(separator: "\n").utf8)
    }

    // MARK: JSON Feed 1.1

    private func jsonFeed() -> Data {
        var json = JSONWriter(capacity: issues.count * 450)
        json.beginObject()
        json.field("feed_url", address("feed.json"))
        json.key("items")
        json.beginArray()
        for (issue, link) in zip(issues, links) {
            json.beginObject()
            json.key("attachments")
            json.beginArray()
            json.beginObject()
            json.field("mime_type", issue.mediaType)
            json.field("size_in_bytes", issue.size)
            json.field("url", link.file)
            json.endObject()
            json.endArray()
            json.key("date_published")
            json.timestamp(issue.metadata.date)
            json.field("id", "urn:newsstand:" + issue.id)
            json.field("image", link.cover)
            json.field("summary", issue.metadata.summary)
            json.field("title", issue.metadata.title)
            json.endObject()
        }
        json.endArray()
        json.field("language", language)
        json.field("title", title)
        json.field("version", "https://jsonfeed.org/version/1.1")
        json.endObject()
        return Data(json.bytes + [0x0A])
    }

    // MARK: Text

    private func xml(_ text: String) -> String { XMLText.escaped(text) }

    static func imageType(_ name: String) -> String {
        switch FileName.pathExtension(name).lowercased() {
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
