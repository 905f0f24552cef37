import Foundation

/// A publisher's list of issues, as loaded from a property list.
public struct Catalog: Sendable, Equatable {
    /// The magazine or publisher, when the catalog names it.
    public var title: String?
    /// The valid entries, in the catalog's order.
    public var entries: [CatalogEntry]
    /// One line per entry that was skipped, naming it and saying why.
    public var warnings: [String]

    public init(title: String?, entries: [CatalogEntry], warnings: [String] = []) {
        self.title = title
        self.entries = entries
        self.warnings = warnings
    }
}
