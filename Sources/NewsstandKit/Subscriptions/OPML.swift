import Foundation

/// Subscriptions in OPML (1.0 and 2.0), the file feed readers and podcast apps import and export:
/// every `<outline>` with an `xmlUrl`, at any depth of folders.
public enum OPML {
    /// One feed of the file.
    public struct Outline: Sendable, Equatable {
        /// `xmlUrl` as written (checked by the importer, which reports what it cannot use).
        public var address: String
        /// `title`, else `text`; nil when both are empty.
        public var title: String?
        /// The subscription's name when newsstand wrote the file (`newsstandName`).
        public var name: String?
        /// The folders it sits in, outermost first (`text` of the outlines around it).
        public var folders: [String]
    }

    /// The feeds of an OPML document, in document order. Parsed by the same guarded reader as
    /// feeds: entity declarations refused, nesting and size bounded.
    public static func read(_ data: Data, limits: CatalogLimits = CatalogLimits()) throws(NewsstandError) -> [Outline] {
        try limits.checkSize(of: data)
        let tree: XMLTree
        do {
            tree = try XMLTree.parse(data)
        } catch {
            throw NewsstandError(.invalidCatalog, "It is not well-formed XML (line \(error.line)), so not OPML.")
        }
        guard !tree.elements.isEmpty, tree.isElement(tree.root, "opml", in: nil) else {
            throw NewsstandError(.invalidCatalog, "It is XML with a <\(TextSanitizer.inert(tree.elements.isEmpty ? "?" : tree.name(of: tree.root)))> root, not OPML.")
        }
        guard let body = tree.child(of: tree.root, "body", in: nil) else {
            throw NewsstandError(.invalidCatalog, "It is OPML without a <body>.")
        }
        var outlines: [Outline] = []
        func walk(_ element: Int, folders: [String]) {
            for child in tree.children(of: element) where tree.isElement(child, "outline", in: nil) {
                let text = nonEmpty(tree.attribute("text", of: child))
                if let address = nonEmpty(tree.attribute("xmlUrl", of: child)) {
                    outlines.append(Outline(address: address, title: nonEmpty(tree.attribute("title", of: child)) ?? text,
                                            name: nonEmpty(tree.attribute("newsstandName", of: child)), folders: folders))
                }
                walk(child, folders: folders + [text ?? ""].filter { !$0.isEmpty })
            }
        }
        walk(body, folders: [])
        return outlines
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    /// An OPML 2.0 document of `subscriptions` (name, title, address), as feed readers import it.
    /// Credentials never go in: an address's user and password are left out.
    public static func write(_ subscriptions: [(name: String, title: String, address: URL)], created: Date) -> String {
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<opml version="2.0">"#,
            "  <head>",
            "    <title>newsstand subscriptions</title>",
            "    <dateCreated>\(rfc822(created))</dateCreated>",
            "  </head>",
            "  <body>",
        ]
        for subscription in subscriptions {
            var components = URLComponents(url: subscription.address, resolvingAgainstBaseURL: false)
            components?.user = nil
            components?.password = nil
            let address = components?.url?.absoluteString ?? subscription.address.absoluteString
            let title = escaped(subscription.title)
            lines.append(#"    <outline type="rss" text="\#(title)" title="\#(title)" xmlUrl="\#(escaped(address))" newsstandName="\#(escaped(subscription.name))"/>"#)
        }
        lines += ["  </body>", "</opml>", ""]
        return lines.joined(separator: "\n")
    }

    private static func escaped(_ text: String) -> String { XMLText.escaped(TextSanitizer.inert(text)) }

    /// OPML's dates are RFC 822's, in UTC.
    private static func rfc822(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
