import Foundation

/// Why a property list could not be read: a short reason for "The catalog is not a valid … (reason)".
/// Why a property list was refused.
struct PropertyListError: Error, Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// The document declares XML entities.
        case entityDeclaration
        /// Arrays and dictionaries nest deeper than the limit.
        case tooDeep(limit: Int)
        /// The root is neither an array of issues nor a dictionary with `Issues`.
        case notACatalog
        /// The root dictionary has no `Issues` array.
        case missingIssues
        /// Any other fault, described for a person.
        case malformed(String)
    }

    let kind: Kind

    init(kind: Kind) { self.kind = kind }
    init(_ reason: String) { kind = .malformed(reason) }

    static func tooDeep(_ limit: Int) -> PropertyListError { PropertyListError(kind: .tooDeep(limit: limit)) }

    /// Why, for a person.
    var reason: String {
        switch kind {
        case .entityDeclaration: return "it declares XML entities, which are not allowed"
        case .tooDeep(let limit): return "it nests deeper than \(limit) levels"
        case .notACatalog: return "the root must be an array of issues or a dictionary with `Issues`"
        case .missingIssues: return "the root dictionary has no `Issues` array"
        case .malformed(let reason): return reason
        }
    }
}
