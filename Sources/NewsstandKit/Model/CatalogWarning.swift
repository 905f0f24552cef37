/// Why a catalog entry was skipped: its kind, its place in the catalog, and its ID when it has one.
public struct CatalogWarning: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The item is not a dictionary (or object) at all.
        case notAnEntry
        /// A required field is missing or of the wrong type.
        case missing(field: String, expected: String)
        /// A field has a value that cannot be used.
        case invalid(field: String, expected: String)
        /// A URL that may not be fetched (not http or https).
        case unsupportedURL(field: String)
        /// The ID (or the local key made from it) is used by an earlier entry.
        case duplicateID
    }

    public let kind: Kind
    /// The entry's place in the catalog, from 0.
    public let index: Int
    /// The entry's ID, when it has one.
    public let id: String?

    public init(_ kind: Kind, index: Int, id: String?) {
        self.kind = kind
        self.index = index
        self.id = id
    }

    /// One line for a person: `Skipped issue 3 (ID "x"): the ID is used twice.`
    public var description: String {
        let reason: String
        switch kind {
        case .notAnEntry: reason = "it is not a dictionary."
        case .missing(let field, let expected): reason = "`\(field)` is missing or not \(expected)."
        case .invalid(let field, let expected): reason = "`\(field)` is not \(expected)."
        case .unsupportedURL(let field): reason = "`\(field)` is not an http or https URL."
        case .duplicateID: reason = "the ID is used twice."
        }
        let name = id.map { " (ID \"" + TextSanitizer.inert(String($0.prefix(60))) + "\")" } ?? ""
        return "Skipped issue \(index + 1)\(name): \(reason)"
    }
}
