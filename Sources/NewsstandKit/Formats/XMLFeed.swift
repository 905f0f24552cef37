import Foundation

/// What the XML formats share: parsing with the limits, text of `type="html"` content, sizes,
/// and resolving the few links a format follows itself.
enum XMLFeed {
    static func parse(_ data: Data, limits: CatalogLimits) throws(NewsstandError) -> XMLTree {
        try limits.checkSize(of: data)
        do {
            return try XMLTree.parse(data, maximumDepth: limits.maximumDepth)
        } catch {
            switch error.kind {
            case .entityDeclaration:
                throw NewsstandError.invalidCatalog("declares XML entities (line \(error.line)), which are not allowed.")
            case .tooDeep(let limit):
                throw NewsstandError.invalidCatalog("nests deeper than \(limit) levels (line \(error.line)).")
            case .malformed(let reason):
                throw NewsstandError.invalidCatalog("is not well-formed XML (line \(error.line): \(TextSanitizer.inert(reason))).")
            }
        }
    }

    /// An element's text; escaped HTML (`type="html"`, or an RSS description) loses its tags too.
    static func text(of element: Int, tree: XMLTree, html: Bool = false) -> String {
        let text = tree.text(of: element)
        // The type compared where it lies: a lowercased copy of it for every title and summary
        // was two allocations an entry.
        if html || tree.withAttribute("type", of: element, isHTMLType) {
            guard text.utf8.contains(UInt8(ascii: "<")) || text.utf8.contains(UInt8(ascii: "&")) else { return text }
            return XMLText.trimmed(XMLText.decode(ArraySlice(text.utf8)))
        }
        return text
    }

    /// Whether a text construct's `type` is `html` or `text/html`, in any case.
    private static func isHTMLType(_ bytes: UnsafeBufferPointer<UInt8>?) -> Bool {
        guard let bytes else { return false }
        return bytes.equalsIgnoringASCIICase("html") || bytes.equalsIgnoringASCIICase("text/html")
    }

    /// A non-negative byte count, or nil for anything else.
    static func size(_ text: String?) -> Int64? {
        // Read as bytes: Foundation's trimming cost more than the rest of an enclosure.
        guard var text else { return nil }
        return text.withUTF8 { bytes -> Int64? in
            var start = 0, end = bytes.count
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            guard end > start, end - start <= 18 else { return nil }
            var value: Int64 = 0
            for index in start..<end {
                let digit = bytes[index] &- 0x30
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value > 0 ? value : nil
        }
    }

    /// An absolute http(s) or file address for a link a format follows or shows.
    static func resolve(_ href: String, against base: URL) -> String? {
        let trimmed = href.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        let resolver = URLResolver(base: base)
        // Templates (`{searchTerms}`, `{?query}`) are not valid URLs until filled in: resolved with a stand-in.
        guard trimmed.contains("{") else { return resolver.resolve(trimmed, allowFiles: base.isFileURL) }
        let marker = "NEWSSTANDTEMPLATE"
        // Optional OpenSearch parameters (`{startPage?}`) are left empty.
        let required = trimmed.replacingOccurrences(of: #"\{[A-Za-z:]+\?\}"#, with: "", options: .regularExpression)
        let filled = required.replacingOccurrences(of: "{searchTerms}", with: marker).replacingOccurrences(of: "{?query}", with: "?query=" + marker)
        return resolver.resolve(filled, allowFiles: base.isFileURL)?.replacingOccurrences(of: marker, with: "{searchTerms}")
    }
}
