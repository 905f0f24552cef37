import Foundation

/// A publisher's list of issues, in the one model every catalog format is turned into.
public struct Catalog: Sendable, Equatable {
    /// The magazine or publisher, when the catalog names it.
    public var title: String?
    /// The valid entries, in the catalog's order.
    public var entries: [CatalogEntry]
    /// The entries that were skipped, and why.
    public var warnings: [CatalogWarning]
    /// Where each local key is in ``entries``: made once while loading, then used by the store.
    let positions: KeyIndex
    /// The format the catalog was read from.
    public var format: CatalogFormatKind = .propertyList
    /// How to search the publisher's server, when its feed says.
    public var search: FeedSearch?
    /// Links to other feeds (a navigation feed's sections).
    public var navigation: [FeedLink] = []
    /// Feed items that offered nothing to download, counted rather than warned of one by one.
    public var itemsWithoutDownload = 0
    /// Sentences about the catalog as a whole, such as a pagination that was cut short.
    public var remarks: [CatalogRemark] = []

    public init(title: String?, entries: [CatalogEntry], warnings: [CatalogWarning] = []) {
        self.init(title: title, entries: entries, warnings: warnings, positions: KeyIndex(of: entries))
    }

    init(title: String?, entries: [CatalogEntry], warnings: [CatalogWarning], positions: KeyIndex) {
        self.title = title
        self.entries = entries
        self.warnings = warnings
        self.positions = positions
    }

    public static func == (lhs: Catalog, rhs: Catalog) -> Bool {
        lhs.title == rhs.title && lhs.entries == rhs.entries && lhs.warnings == rhs.warnings && lhs.format == rhs.format
    }
}
