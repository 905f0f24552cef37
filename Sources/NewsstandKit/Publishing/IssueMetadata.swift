import Foundation

/// What a publisher's file says of itself: a PDF's Info dictionary and XMP (read by poppler's `pdfinfo`),
/// an EPUB's package, a CBZ's ComicInfo.xml, an HPub's book.json; then its name
/// (`2026-03 Spring Issue.pdf`); then the file's time.
public struct IssueMetadata: Sendable, Equatable, Codable {
    public var title: String
    public var date: Date
    public var summary: String?

    /// Reads the metadata of the issue at `path`, named `name` in its folder, modified `modified`.
    static func read(path: String, name: String, type: MediaType, modified: Date) -> IssueMetadata {
        let inside: (title: String?, date: Date?, summary: String?) = switch type {
        case .pdf: pdf(path)
        case .epub: (try? epub(ZipFile(path: path))) ?? (nil, nil, nil)
        case .cbz: (try? comicInfo(ZipFile(path: path))) ?? (nil, nil, nil)
        case .hpub: (try? book(ZipFile(path: path))) ?? (nil, nil, nil)
        case .jpeg, .png, .webp: (nil, nil, nil)
        }
        let named = fromName(name)
        return IssueMetadata(title: clean(inside.title) ?? named.title, date: inside.date ?? named.date ?? modified,
                             summary: clean(inside.summary))
    }

    private static func clean(_ text: String?) -> String? {
        guard let text = text?.split(whereSeparator: { $0.isWhitespace }).joined(separator: " "), !text.isEmpty else { return nil }
        return TextSanitizer.inert(text)
    }

    /// `2026-03 Spring Issue`, `2026-03-14_Spring`, else the name without its extension.
    static func fromName(_ name: String) -> (title: String, date: Date?) {
        let stem = FileName.stem(name)
        if let match = stem.wholeMatch(of: /(\d{4})-(\d{2})(?:-(\d{2}))?[ _-]+(.+)/),
           let date = FeedDate.iso8601("\(match.1)-\(match.2)-\(match.3.map(String.init) ?? "01")T00:00:00Z") {
            return (String(match.4).replacingOccurrences(of: "_", with: " "), date)
        }
        return (stem.replacingOccurrences(of: "_", with: " "), nil)
    }

    /// `pdfinfo`'s Title, Subject and CreationDate (ISO dates); what the Info dictionary lacks,
    /// from the XMP packet (`dc:title`, `dc:description`, `xmp:CreateDate`) when there is one.
    /// Each run is killed after 10 s.
    private static func pdf(_ path: String) -> (String?, Date?, String?) {
        guard let output = Subprocess.output(of: ["pdfinfo", "-isodates", "-enc", "UTF-8", "--", path], seconds: 10) else { return (nil, nil, nil) }
        var fields: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var found = (fields["Title"].flatMap { $0.isEmpty ? nil : $0 }, fields["CreationDate"].flatMap(FeedDate.iso8601),
                     fields["Subject"].flatMap { $0.isEmpty ? nil : $0 })
        if fields["Metadata Stream"] == "yes", found.0 == nil || found.1 == nil || found.2 == nil,
           let packet = Subprocess.output(of: ["pdfinfo", "-meta", "--", path], seconds: 10) {
            let xmp = Self.xmp(Data(packet.utf8))
            found = (found.0 ?? xmp.0, found.1 ?? xmp.1, found.2 ?? xmp.2)
        }
        return found
    }

    /// An XMP packet's `dc:title` and `dc:description` (the `x-default` language, else the
    /// first) and `xmp:CreateDate`, written as an element or as an attribute.
    static func xmp(_ data: Data) -> (String?, Date?, String?) {
        guard let tree = try? XMLTree.parse(data) else { return (nil, nil, nil) }
        let dc = "http://purl.org/dc/elements/1.1/", xmp = "http://ns.adobe.com/xap/1.0/", rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
        func text(_ name: String) -> String? {
            guard let element = tree.elements.indices.first(where: { tree.isElement($0, name, in: dc) }) else { return nil }
            // <dc:title><rdf:Alt><rdf:li xml:lang="x-default">…</rdf:li></rdf:Alt></dc:title>
            var items: [Int] = []
            for container in tree.children(of: element) where tree.isElement(container, "Alt", in: rdf) || tree.isElement(container, "Seq", in: rdf) {
                items += tree.children(of: container).filter { tree.isElement($0, "li", in: rdf) }
            }
            let chosen = items.first { tree.attribute("lang", of: $0, in: "http://www.w3.org/XML/1998/namespace") == "x-default" } ?? items.first
            let value = XMLText.trimmed(chosen.map { tree.text(of: $0) } ?? tree.text(of: element))
            return value.isEmpty ? nil : value
        }
        var created = tree.elements.indices.first { tree.isElement($0, "CreateDate", in: xmp) }.map { tree.text(of: $0) }
        if created == nil {
            created = tree.elements.indices.lazy.compactMap { tree.attribute("CreateDate", of: $0, in: xmp) }.first
        }
        let date = created.flatMap { value -> Date? in
            let trimmed = XMLText.trimmed(value)
            return FeedDate.iso8601(trimmed) ?? FeedDate.iso8601(trimmed + "T00:00:00Z")
        }
        return (text("title"), date, text("description"))
    }

    /// The package's `dc:title`, `dc:date` and `dc:description`.
    private static func epub(_ zip: ZipFile) throws(NewsstandError) -> (String?, Date?, String?) {
        let container = try parse(zip.read("META-INF/container.xml", limit: 1 << 20))
        guard let rootfile = container.elements.indices.first(where: { container.isElement($0, "rootfile", in: nil) }),
              let opf = container.attribute("full-path", of: rootfile)
        else { return (nil, nil, nil) }
        let package = try parse(zip.read(opf, limit: 4 << 20))
        func first(_ name: String) -> String? {
            package.elements.indices.first { package.isElement($0, name, in: nil) }.map { package.text(of: $0) }
        }
        return (first("title"), first("date").flatMap { FeedDate.iso8601($0) ?? FeedDate.iso8601($0 + "T00:00:00Z") }, first("description"))
    }

    /// ComicInfo.xml's Title (else Series and Number), Year, Month and Day, and Summary.
    private static func comicInfo(_ zip: ZipFile) throws(NewsstandError) -> (String?, Date?, String?) {
        let info = try parse(zip.read("ComicInfo.xml", limit: 1 << 20))
        func field(_ name: String) -> String? { info.childText(of: info.root, name, in: nil) }
        let series = [field("Series"), field("Number").map { "#" + $0 }].compactMap { $0 }.joined(separator: " ")
        var date: Date?
        if let year = field("Year").flatMap(Int.init) {
            let month = field("Month").flatMap(Int.init) ?? 1, day = field("Day").flatMap(Int.init) ?? 1
            date = FeedDate.iso8601(String(format: "%04d-%02d-%02dT00:00:00Z", year, month, day))
        }
        return (field("Title") ?? (series.isEmpty ? nil : series), date, field("Summary"))
    }

    /// book.json's `title`, `date` and `info` (Baker's words for a summary).
    private static func book(_ zip: ZipFile) throws(NewsstandError) -> (String?, Date?, String?) {
        let data = try zip.read("book.json", limit: 1 << 20)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return (nil, nil, nil) }
        return (object["title"] as? String, (object["date"] as? String).flatMap(FeedDate.iso8601), object["info"] as? String)
    }

    private static func parse(_ data: Data) throws(NewsstandError) -> XMLTree {
        do {
            return try XMLTree.parse(data)
        } catch {
            throw NewsstandError(.verificationFailed, "Not well-formed XML.")
        }
    }
}
