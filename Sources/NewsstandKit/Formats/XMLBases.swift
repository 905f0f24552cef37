import Foundation

/// The base URL each element's relative links resolve against: `xml:base` on the element or an
/// ancestor, each resolved against its parent's base (RFC 3986 at every level, XML Base §4.2),
/// and the document's own URL above them all.
///
/// A document without any `xml:base` — nearly all of them — costs one look at its attributes.
struct XMLBases {
    private let tree: XMLTree
    private let document: URL
    private let hasBases: Bool
    private var known: [Int: URL] = [:]

    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    init(_ tree: XMLTree, document: URL) {
        self.tree = tree
        self.document = document
        hasBases = tree.hasXMLBase
    }

    /// The base of `element`.
    mutating func base(of element: Int) -> URL {
        guard hasBases, element >= 0 else { return document }
        if let base = known[element] { return base }
        let parent = Int(tree.elements[element].parent)
        let inherited = parent >= 0 && parent != element ? base(of: parent) : document
        var base = inherited
        if let value = tree.attribute("base", of: element, in: Self.xmlNamespace)?.trimmingCharacters(in: .whitespacesAndNewlines),
           let resolved = URL(string: value, relativeTo: inherited)?.absoluteURL,
           ["http", "https", "file"].contains(resolved.scheme?.lowercased() ?? "") {
            base = resolved
        }
        known[element] = base
        return base
    }

    /// `href` as the element it stands on reads it: absolute when an `xml:base` is in force,
    /// else as written (the validator resolves it against the document).
    mutating func address(_ href: String, of element: Int) -> String {
        guard hasBases else { return href }
        return XMLFeed.resolve(href, against: base(of: element)) ?? href
    }
}
