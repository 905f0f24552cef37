import Foundation

/// A parsed XML document: its elements in one flat list, names resolved to namespaces.
///
/// Written for feeds from servers we do not control: entity declarations are refused (so
/// nothing is ever expanded or fetched), nesting is capped, `<?xml-stylesheet?>` and other
/// processing instructions are skipped, and the HTML entities feeds use without declaring them
/// are read. An element's text is decoded only when asked for.
struct XMLTree: Sendable, Equatable {
    /// An element or an attribute names itself by where its local name lies in the document, not
    /// by a string of it: a string made or looked up for each of a feed's 200,000 names, copied
    /// (retained) with each element and compared as a string, was 8% of the instructions a
    /// refresh of a 10,000-entry feed took.
    /// ``name(of:)`` makes the string when one is wanted; ``isElement(_:_:in:)`` and the attribute
    /// lookups compare bytes.
    struct Element: Sendable, Equatable {
        /// Where the local name (without its prefix) lies in ``XMLTree/document``.
        var name: Range<Int32>
        /// An index into ``XMLTree/namespaces``; -1 for none.
        var namespace: Int32
        var parent: Int32
        var firstChild: Int32 = -1
        var nextSibling: Int32 = -1
        var attributes: Range<Int32>
        /// Bytes between the start tag and the end tag (a document is at most 128 MiB).
        var content: Range<Int32>
        /// Whether the content holds markup or references, so that its text needs decoding.
        var hasMarkup = false
        /// The local name's first eight bytes, the first in the lowest, zero past its end: a name
        /// of eight bytes or fewer (nearly every name a feed uses) is told without reading the
        /// document. Walking a feed's 10,000 entries read each one's name there, 1.6 ms of cache
        /// misses on the one core while the other waited. (No default: whatever makes an element
        /// must say it.)
        var nameHead: UInt64

        /// The first eight bytes of `name`, as ``nameHead`` holds them.
        @inline(__always)
        static func head<Name: Sequence<UInt8>>(of name: Name) -> UInt64 {
            var head: UInt64 = 0
            var shift: UInt64 = 0
            for byte in name {
                guard shift < 64 else { break }
                head |= UInt64(byte) << shift
                shift += 8
            }
            return head
        }
    }

    struct Attribute: Sendable, Equatable {
        /// Where the local name lies in ``XMLTree/document``.
        var name: Range<Int32>
        /// An index into ``XMLTree/namespaces``; -1 for none (the usual case: unprefixed).
        var namespace: Int32
        /// Where the raw value lies: it is decoded only when asked for, as most never are.
        var value: Range<Int32>
        var hasReference: Bool
    }

    /// A list kept as two arrays, one after the other. A document read in halves keeps what the
    /// second half read where it was read, its indices already made the document's: copying it
    /// after the first half's took most of what the second half had saved.
    struct Segments<Item: Sendable & Equatable>: RandomAccessCollection, Sendable, Equatable {
        let first: [Item]
        let second: [Item]

        var startIndex: Int { 0 }
        var endIndex: Int { first.count + second.count }

        subscript(position: Int) -> Item {
            position < first.count ? first[position] : second[position - first.count]
        }

        /// The same items in the same order, however they are split.
        static func == (lhs: Self, rhs: Self) -> Bool { lhs.elementsEqual(rhs) }
    }

    /// Why a document is refused: the reason, and the line it was found on.
    struct Failure: Error, Sendable {
        enum Kind: Sendable, Equatable {
            case entityDeclaration
            case tooDeep(Int)
            case malformed(String)
        }
        var kind: Kind
        var line: Int
    }

    /// The document as UTF-8: the bytes the ranges below point into (not copied from what was
    /// read: a copy of a 5 MB feed cost 4 ms, most of it in faulting in fresh pages).
    let document: Data
    let elements: Segments<Element>
    let attributes: Segments<Attribute>
    /// Namespace URIs in the order first met.
    let namespaces: [String]
    /// Whether any element has an `xml:base`: most documents have none, and their links need no walk up.
    let hasXMLBase: Bool
    /// The document's bytes while ``reading(_:)`` holds them.
    private var held = HeldBytes(bytes: nil)

    private struct HeldBytes: @unchecked Sendable, Equatable {
        let bytes: UnsafeBufferPointer<UInt8>?

        /// Held or not, a tree is its document's: the bytes are the same.
        static func == (_: HeldBytes, _: HeldBytes) -> Bool { true }
    }

    /// The root element's index (always 0 in a parsed tree).
    var root: Int { 0 }

    static func parse(_ data: Data, maximumDepth: Int = 64) throws(Failure) -> XMLTree {
        try parse(data, maximumDepth: maximumDepth, secondHalfFrom: nil, secondHalfAtOnce: false).tree
    }

    /// Parses a document, a large one in two halves at once (``XMLTreeSecondHalf``), and says
    /// whether a second half was used. `secondHalfFrom` is where to look for the second half's
    /// start; nil, the middle of a document of at least ``XMLTreeSecondHalf/minimumSize``.
    /// `secondHalfAtOnce` reads the second half before the first (tests: every guess is read).
    static func parse(_ data: Data, maximumDepth: Int, secondHalfFrom: Int?, secondHalfAtOnce: Bool) throws(Failure) -> (tree: XMLTree, inHalves: Bool) {
        let document = (try? DocumentEncoding.utf8(data)) ?? data
        guard document.count <= Int(Int32.max) else { throw Failure(kind: .malformed("the document is too large"), line: 1) }
        // The builder reads through a pointer valid only inside this closure; what leaves it is
        // the arrays it built. (`withUnsafeBytes` rethrows untyped: the failure leaves as a value.)
        let built = document.withUnsafeBytes { (raw) -> Result<(tree: XMLTree, inHalves: Bool), Failure> in
            let buffer = raw.bindMemory(to: UInt8.self)
            let from = secondHalfFrom ?? (buffer.count >= XMLTreeSecondHalf.minimumSize ? buffer.count / 2 : nil)
            let candidate = from.flatMap { XMLTreeSecondHalf.candidate(in: buffer, from: $0) }
            // Room for the first half's elements only (the second half makes its own).
            var builder = Builder(bytes: buffer, maximumDepth: maximumDepth, extent: candidate?.start)
            do throws(Failure) {
                var inHalves = false
                if let candidate {
                    inHalves = try builder.readFirstHalf(to: candidate, atOnce: secondHalfAtOnce)
                }
                while try builder.step() != nil {}
                try builder.finish()
                let tree = XMLTree(document: document,
                                   elements: Segments(first: builder.elements, second: builder.appendedElements),
                                   attributes: Segments(first: builder.attributes, second: builder.appendedAttributes),
                                   namespaces: builder.namespaces, hasXMLBase: builder.hasXMLBase)
                return .success((tree, inHalves))
            } catch {
                return .failure(error)
            }
        }
        return try built.get()
    }

    private init(document: Data, elements: Segments<Element>, attributes: Segments<Attribute>, namespaces: [String], hasXMLBase: Bool) {
        self.document = document
        self.elements = elements
        self.attributes = attributes
        self.namespaces = namespaces
        self.hasXMLBase = hasXMLBase
    }

    // MARK: Reading the tree

    func namespace(of element: Int) -> String? {
        let index = elements[element].namespace
        return index < 0 ? nil : namespaces[Int(index)]
    }

    /// Whether an element is `name` in namespace `namespace` (nil: any namespace).
    func isElement(_ element: Int, _ name: String, in namespace: String?) -> Bool {
        let found = elements[element]
        let count = Int(found.name.upperBound - found.name.lowerBound)
        if count <= 8 {
            guard count == name.utf8.count, found.nameHead == Element.head(of: name.utf8) else { return false }
        } else {
            guard names(found.name, name) else { return false }
        }
        guard let namespace else { return true }
        return self.namespace(of: element) == namespace
    }

    /// An element's local name.
    func name(of element: Int) -> String {
        withName(of: element) { String(decoding: $0, as: UTF8.self) }
    }

    /// `body` on the bytes of an element's local name, where the document keeps them.
    func withName<Result>(of element: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let range = elements[element].name
        return withBytes { bytes in body(UnsafeBufferPointer(rebasing: bytes[Int(range.lowerBound)..<Int(range.upperBound)])) }
    }

    /// Whether the name at `range` of the document is `name`.
    private func names(_ range: Range<Int32>, _ name: String) -> Bool {
        let count = Int(range.upperBound - range.lowerBound)
        guard count == name.utf8.count else { return false }
        guard count > 0 else { return true }
        return withBytes { bytes in
            let start = bytes.baseAddress! + Int(range.lowerBound)
            // A literal's bytes are contiguous; any other string is compared a byte at a time.
            return name.utf8.withContiguousStorageIfAvailable { memcmp(start, $0.baseAddress!, count) == 0 }
                ?? name.utf8.elementsEqual(UnsafeBufferPointer(start: start, count: count))
        }
    }

    /// The element's children, in order.
    func children(of element: Int) -> ChildSequence {
        ChildSequence(elements: elements, first: Int(elements[element].firstChild))
    }

    /// How many children the element has (a feed's entries, to make room for them at once).
    func childCount(of element: Int) -> Int {
        children(of: element).reduce(0) { count, _ in count + 1 }
    }

    /// The first child called `name` in `namespace` (nil: any namespace).
    func child(of element: Int, _ name: String, in namespace: String?) -> Int? {
        children(of: element).first { isElement($0, name, in: namespace) }
    }

    /// The value of an unprefixed attribute, or of one in `namespace`.
    func attribute(_ name: String, of element: Int, in namespace: String? = nil) -> String? {
        let range = elements[element].attributes
        for index in Int(range.lowerBound)..<Int(range.upperBound) {
            let attribute = attributes[index]
            guard names(attribute.name, name) else { continue }
            if let namespace {
                if attribute.namespace >= 0, namespaces[Int(attribute.namespace)] == namespace { return value(of: attribute) }
            } else if attribute.namespace < 0 {
                return value(of: attribute)
            }
        }
        return nil
    }

    /// `body` on the raw bytes of an unprefixed attribute's value, decoded first only when it
    /// holds a reference; nil when there is no such attribute. For values compared, not kept
    /// (a link's `rel`): a string for each was an allocation.
    func withAttribute<Result>(_ name: String, of element: Int, _ body: (UnsafeBufferPointer<UInt8>?) -> Result) -> Result {
        let range = elements[element].attributes
        for index in Int(range.lowerBound)..<Int(range.upperBound) {
            let attribute = attributes[index]
            guard attribute.namespace < 0, names(attribute.name, name) else { continue }
            if attribute.hasReference {
                var decoded = value(of: attribute)
                return decoded.withUTF8 { body($0) }
            }
            return withBytes { bytes in body(UnsafeBufferPointer(rebasing: bytes[Int(attribute.value.lowerBound)..<Int(attribute.value.upperBound)])) }
        }
        return body(nil)
    }

    private func value(of attribute: Attribute) -> String {
        withBytes { bytes in
            let raw = bytes[Int(attribute.value.lowerBound)..<Int(attribute.value.upperBound)]
            return attribute.hasReference ? XMLText.decode(raw, attribute: true) : String(decoding: raw, as: UTF8.self)
        }
    }

    private func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let bytes = held.bytes { return body(bytes) }
        return document.withUnsafeBytes { raw in body(raw.bindMemory(to: UInt8.self)) }
    }

    /// `body` on a copy of this tree that reads every text and attribute from the document's
    /// bytes, held for the length of the call. Asking `Data` for them each time went through its
    /// storage's exclusivity check: 27 million instructions of the 726 million a refresh of a
    /// 10,000-entry feed took. The copy must not outlive `body`.
    func reading<Value>(_ body: (XMLTree) throws(NewsstandError) -> Value) throws(NewsstandError) -> Value {
        let outcome = document.withUnsafeBytes { raw -> Result<Value, NewsstandError> in
            var holding = self
            holding.held = HeldBytes(bytes: raw.bindMemory(to: UInt8.self))
            return Result { () throws(NewsstandError) in try body(holding) }
        }
        return try outcome.get()
    }

    /// The text inside an element and its descendants, references decoded, tags dropped,
    /// white space at either end removed.
    func text(of element: Int) -> String {
        let item = elements[element]
        return withBytes { bytes in
            let content = bytes[Int(item.content.lowerBound)..<Int(item.content.upperBound)]
            return item.hasMarkup ? XMLText.trimmed(XMLText.decode(content)) : XMLText.trimmed(content)
        }
    }

    /// `body` on the text of an element as ``text(of:)`` has it, read in place when nothing in
    /// it needs decoding (a date is parsed, not kept).
    func withText<Result>(of element: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let item = elements[element]
        if item.hasMarkup {
            var text = text(of: element)
            return text.withUTF8 { body($0) }
        }
        return withBytes { bytes in
            var start = Int(item.content.lowerBound), end = Int(item.content.upperBound)
            while start < end, XMLText.isSpace(bytes[start]) { start += 1 }
            while end > start, XMLText.isSpace(bytes[end - 1]) { end -= 1 }
            return body(UnsafeBufferPointer(rebasing: bytes[start..<end]))
        }
    }

    /// The text of the first child called `name`, if there is such a child and it is not empty.
    func childText(of element: Int, _ name: String, in namespace: String?) -> String? {
        guard let child = child(of: element, name, in: namespace) else { return nil }
        let text = text(of: child)
        return text.isEmpty ? nil : text
    }

    struct ChildSequence: Sequence, IteratorProtocol {
        // Only the elements, not the tree: every copy of a buffer is a count the cores reading
        // one feed's entries at once take turns to change (a copy of the tree was six).
        let elements: Segments<XMLTree.Element>
        var upcoming: Int

        init(elements: Segments<XMLTree.Element>, first: Int) {
            self.elements = elements
            upcoming = first
        }

        mutating func next() -> Int? {
            guard upcoming >= 0 else { return nil }
            let current = upcoming
            upcoming = Int(elements.nextSibling(of: current))
            return current
        }
    }
}

extension XMLTree.Segments<XMLTree.Element> {
    /// One field read in place: the subscript copies the whole element out.
    func nextSibling(of position: Int) -> Int32 {
        position < first.count ? first[position].nextSibling : second[position - first.count].nextSibling
    }
}
