import Foundation

/// Well-known public catalogs a reader can subscribe to by a short name (`newsstand subscribe
/// gutenberg`): the ones bundled here, then the reader's own `[directory.NAME]` tables of the
/// configuration, which add to them or replace one of the same name.
public struct CatalogDirectory: Sendable {
    public struct Entry: Sendable, Equatable {
        /// The short name, which is also the subscription's name by default.
        public var name: String
        public var title: String
        public var url: URL
        public var summary: String
        /// Whether it came from the reader's configuration rather than newsstand itself.
        public var fromConfiguration = false

        public init(name: String, title: String, url: URL, summary: String, fromConfiguration: Bool = false) {
            self.name = name
            self.title = title
            self.url = url
            self.summary = summary
            self.fromConfiguration = fromConfiguration
        }
    }

    /// In the order shown: the bundled entries, then the configuration's own.
    public private(set) var entries: [Entry]

    /// The bundled entries with the configuration's added (or put in place of the same name).
    public init(adding extras: [Entry] = []) {
        var entries = Self.bundled
        for extra in extras {
            if let index = entries.firstIndex(where: { $0.name == extra.name }) {
                entries[index] = extra
            } else {
                entries.append(extra)
            }
        }
        self.entries = entries
    }

    public func entry(named name: String) -> Entry? {
        entries.first { $0.name == name }
    }

    /// Public catalogs that answer without an account, as readers such as KOReader list them,
    /// and two daily-picture publications.
    public static let bundled: [Entry] = [
        Entry(name: "gutenberg", title: "Project Gutenberg", url: URL(string: "https://m.gutenberg.org/ebooks.opds/")!,
              summary: "Over 70,000 free ebooks whose US copyright has expired."),
        Entry(name: "standard-ebooks", title: "Standard Ebooks", url: URL(string: "https://standardebooks.org/feeds/opds")!,
              summary: "Carefully produced public-domain ebooks (its full feeds ask for a free account)."),
        Entry(name: "manybooks", title: "ManyBooks", url: URL(string: "https://manybooks.net/opds/index.php")!,
              summary: "Free ebooks, public domain and independent authors."),
        Entry(name: "internet-archive", title: "Internet Archive", url: URL(string: "https://bookserver.archive.org/")!,
              summary: "The Internet Archive's book server: scanned books and magazines."),
        Entry(name: "gallica", title: "Gallica (French)", url: URL(string: "https://gallica.bnf.fr/opds")!,
              summary: "The Bibliothèque nationale de France's digital library."),
        Entry(name: "textos-info", title: "textos.info (Spanish)", url: URL(string: "https://www.textos.info/catalogo.atom")!,
              summary: "Free ebooks in Spanish."),
        Entry(name: "opds-test", title: "OPDS 2.0 test catalog", url: URL(string: "https://test.opds.io/2.0/home.json")!,
              summary: "The OPDS community's catalog for trying a reader against OPDS 2.0."),
        Entry(name: "bing-daily", title: "Bing's picture of the day",
              url: URL(string: "https://www.bing.com/HPImageArchive.aspx?format=js&idx=0&n=8&mkt=en-US")!,
              summary: "The last eight days' pictures, each an issue that is its own cover."),
        Entry(name: "commons-potd", title: "Wikimedia Commons picture of the day",
              url: URL(string: "https://commons.wikimedia.org/w/api.php?action=featuredfeed&feed=potd&feedformat=rss")!,
              summary: "One of the finest pictures on Wikimedia Commons, every day."),
    ]
}
