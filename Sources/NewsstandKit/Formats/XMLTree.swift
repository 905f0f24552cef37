import Foundation

/// A parsed XML document: its elements in one flat array, names resolved to namespaces.
///
/// Written for feeds from servers we do not control: entity declarations are refused (so
/// nothing is ever expanded or fetched), nesting is capped, `<?xml-stylesheet?>` and other
/// processing instructions are skipped, and the HTML entities feeds use without declaring them
/// are read. An element's text is decoded only when asked for.
struct XMLTree: Sendable {
    struct Element: Sendable {
        /// The local name, without its prefix.
        var name: String
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
    }

    struct Attribute: Sendable {
        var name: String
        /// An index into ``XMLTree/namespaces``; -1 for none (the usual case: unprefixed).
        var namespace: Int32
        /// Where the raw value lies: it is decoded only when asked for, as most never are.
        var value: Range<Int32>
        var hasReference: Bool
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

    let bytes: [UInt8]
    private(set) var elements: [Element] = []
    private(set) var attributes: [Attribute] = []
    /// Namespace URIs in the order first met.
    private(set) var namespaces: [String] = []
    /// Whether any element has an `xml:base`: most documents have none, and their links need no walk up.
    private(set) var hasXMLBase = false

    /// The root element's index (always 0 in a parsed tree).
    var root: Int { 0 }

    static func parse(_ data: Data, maximumDepth: Int = 64) throws(Failure) -> XMLTree {
        var tree = XMLTree(bytes: Self.utf8(data))
        guard tree.bytes.count <= Int(Int32.max) else { throw Failure(kind: .malformed("the document is too large"), line: 1) }
        let bytes = tree.bytes
        try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) in try tree.build(buffer, maximumDepth: maximumDepth) }
        return tree
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: Reading the tree

    func namespace(of element: Int) -> String? {
        let index = elements[element].namespace
        return index < 0 ? nil : namespaces[Int(index)]
    }

    /// Whether an element is `name` in namespace `namespace` (nil: any namespace).
    func isElement(_ element: Int, _ name: String, in namespace: String?) -> Bool {
        guard elements[element].name == name else { return false }
        guard let namespace else { return true }
        return self.namespace(of: element) == namespace
    }

    /// The element's children, in order.
    func children(of element: Int) -> ChildSequence {
        ChildSequence(tree: self, first: Int(elements[element].firstChild))
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
            guard attribute.name == name else { continue }
            if let namespace {
                if attribute.namespace >= 0, namespaces[Int(attribute.namespace)] == namespace { return value(of: attribute) }
            } else if attribute.namespace < 0 {
                return value(of: attribute)
            }
        }
        return nil
    }

    private func value(of attribute: Attribute) -> String {
        let raw = bytes[Int(attribute.value.lowerBound)..<Int(attribute.value.upperBound)]
        return attribute.hasReference ? XMLText.decode(raw, attribute: true) : String(decoding: raw, as: UTF8.self)
    }

    /// The text inside an element and its descendants, references decoded, tags dropped,
    /// white space at either end removed.
    func text(of element: Int) -> String {
        let item = elements[element]
        let content = bytes[Int(item.content.lowerBound)..<Int(item.content.upperBound)]
        return item.hasMarkup ? XMLText.trimmed(XMLText.decode(content)) : XMLText.trimmed(content)
    }

    /// The text of the first child called `name`, if there is such a child and it is not empty.
    func childText(of element: Int, _ name: String, in namespace: String?) -> String? {
        guard let child = child(of: element, name, in: namespace) else { return nil }
        let text = text(of: child)
        return text.isEmpty ? nil : text
    }

    struct ChildSequence: Sequence, IteratorProtocol {
        let tree: XMLTree
        var upcoming: Int

        init(tree: XMLTree, first: Int) {
            self.tree = tree
            upcoming = first
        }

        mutating func next() -> Int? {
            guard upcoming >= 0 else { return nil }
            let current = upcoming
            upcoming = Int(tree.elements[current].nextSibling)
            return current
        }
    }

    // MARK: Parsing

    /// The document as UTF-8 (``DocumentEncoding``; a reader that knows the HTTP charset has
    /// converted it already, and a converted document says UTF-8).
    private static func utf8(_ data: Data) -> [UInt8] {
        let text = (try? DocumentEncoding.utf8(data)) ?? data
        return [UInt8](unsafeUninitializedCapacity: text.count) { buffer, count in
            count = text.copyBytes(to: buffer)
        }
    }

    private mutating func build(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) throws(Failure) {
        var scanner = XMLScanner(bytes: bytes)
        // A feed's tag takes about 50 bytes (its attributes less): growing arrays of a few
        // hundred thousand elements, moved at each doubling, cost a seventh of the parse.
        elements.reserveCapacity(bytes.count / 48 + 16)
        attributes.reserveCapacity(bytes.count / 48 + 16)
        var open: [(element: Int, nameStart: Int, nameEnd: Int, bindings: Int)] = []
        var bindings: [(prefix: [UInt8], namespace: Int32)] = [(Array("xml".utf8), Int32(internNamespace("http://www.w3.org/XML/1998/namespace")))]
        var lastChild: [Int] = []
        var rawAttributes: [XMLScanner.RawAttribute] = []
        scanner.skipByteOrderMark()
        while true {
            guard let token = try scanner.nextToken(inElement: !open.isEmpty) else { break }
            switch token {
            case .text(let hasMarkup):
                guard let top = open.last else {
                    throw scanner.failure("there is text outside the root element")
                }
                if hasMarkup { elements[top.element].hasMarkup = true }
            case .startTag(let nameStart, let nameEnd, let selfClosing):
                if open.isEmpty, !elements.isEmpty { throw scanner.failure("there is more than one root element") }
                guard open.count < maximumDepth else { throw Failure(kind: .tooDeep(maximumDepth), line: scanner.line) }
                rawAttributes.removeAll(keepingCapacity: true)
                try scanner.attributes(into: &rawAttributes)
                let bindingCount = bindings.count
                for attribute in rawAttributes {
                    let name = bytes[attribute.nameStart..<attribute.nameEnd]
                    guard name.starts(with: "xmlns".utf8) else { continue }
                    let raw = bytes[attribute.valueStart..<attribute.valueEnd]
                    let uri = attribute.hasReference ? XMLText.decode(ArraySlice(raw), attribute: true) : String(decoding: raw, as: UTF8.self)
                    if name.count == 5 {
                        bindings.append(([], Int32(internNamespace(uri))))
                    } else if name.starts(with: "xmlns:".utf8) {
                        bindings.append((Array(name.dropFirst(6)), Int32(internNamespace(uri))))
                    }
                }
                let (prefix, local) = Self.split(bytes[nameStart..<nameEnd])
                guard let namespace = Self.resolve(prefix, in: bindings, isElement: true) else {
                    throw scanner.failure("the prefix \(String(decoding: prefix, as: UTF8.self)) is not declared")
                }
                let attributeStart = Int32(attributes.count)
                for attribute in rawAttributes {
                    let name = bytes[attribute.nameStart..<attribute.nameEnd]
                    if name.elementsEqual("xmlns".utf8) || name.starts(with: "xmlns:".utf8) { continue }
                    let (attributePrefix, attributeLocal) = Self.split(name)
                    // An undeclared attribute prefix is kept as no namespace rather than refused: feeds do it.
                    let attributeNamespace = attributePrefix.isEmpty ? -1 : Self.resolve(attributePrefix, in: bindings, isElement: false) ?? -1
                    // The `xml` prefix is bound first, to namespace 0.
                    if attributeNamespace == 0, attributeLocal.elementsEqual("base".utf8) { hasXMLBase = true }
                    attributes.append(Attribute(
                        name: String(decoding: attributeLocal, as: UTF8.self), namespace: attributeNamespace,
                        value: Int32(attribute.valueStart)..<Int32(attribute.valueEnd), hasReference: attribute.hasReference))
                }
                let index = elements.count
                let parent = open.last?.element ?? -1
                elements.append(Element(
                    name: String(decoding: local, as: UTF8.self), namespace: namespace, parent: Int32(parent),
                    attributes: attributeStart..<Int32(attributes.count), content: Int32(scanner.index)..<Int32(scanner.index)))
                if parent >= 0 {
                    elements[parent].hasMarkup = true
                    let previous = lastChild[open.count - 1]
                    if previous >= 0 {
                        elements[previous].nextSibling = Int32(index)
                    } else {
                        elements[parent].firstChild = Int32(index)
                    }
                    lastChild[open.count - 1] = index
                }
                if selfClosing {
                    if bindings.count > bindingCount { bindings.removeSubrange(bindingCount...) }
                } else {
                    open.append((index, nameStart, nameEnd, bindingCount))
                    if lastChild.count < open.count { lastChild.append(-1) } else { lastChild[open.count - 1] = -1 }
                }
            case .endTag(let nameStart, let nameEnd, let tagStart):
                guard let top = open.popLast() else { throw scanner.failure("an end tag has no start tag") }
                guard bytes[nameStart..<nameEnd].elementsEqual(bytes[top.nameStart..<top.nameEnd]) else {
                    throw scanner.failure("</\(String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self))> closes <\(String(decoding: bytes[top.nameStart..<top.nameEnd], as: UTF8.self))>")
                }
                elements[top.element].content = elements[top.element].content.lowerBound..<Int32(tagStart)
                if bindings.count > top.bindings { bindings.removeSubrange(top.bindings...) }
            case .markupInText:
                guard let top = open.last else { continue }
                elements[top.element].hasMarkup = true
            }
        }
        if let top = open.last {
            throw scanner.failure("the document ends inside <\(String(decoding: bytes[top.nameStart..<top.nameEnd], as: UTF8.self))>")
        }
        guard !elements.isEmpty else { throw scanner.failure("there is no root element") }
    }

    private mutating func internNamespace(_ uri: String) -> Int {
        if let index = namespaces.firstIndex(of: uri) { return index }
        namespaces.append(uri)
        return namespaces.count - 1
    }

    private static func split(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> (prefix: Slice<UnsafeBufferPointer<UInt8>>, local: Slice<UnsafeBufferPointer<UInt8>>) {
        guard let colon = name.firstIndex(of: UInt8(ascii: ":")) else { return (name[name.startIndex..<name.startIndex], name) }
        return (name[..<colon], name[(colon + 1)...])
    }

    /// The namespace a prefix is bound to, innermost first; an unprefixed attribute has none.
    private static func resolve(_ prefix: Slice<UnsafeBufferPointer<UInt8>>, in bindings: [(prefix: [UInt8], namespace: Int32)], isElement: Bool) -> Int32? {
        for binding in bindings.reversed() where binding.prefix.elementsEqual(prefix) {
            return binding.namespace
        }
        return prefix.isEmpty ? -1 : nil
    }
}
