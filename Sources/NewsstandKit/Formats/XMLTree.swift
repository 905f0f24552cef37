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
        /// Bytes between the start tag and the end tag.
        var content: Range<Int>
        /// Whether the content holds markup or references, so that its text needs decoding.
        var hasMarkup = false
    }

    struct Attribute: Sendable {
        var name: String
        /// An index into ``XMLTree/namespaces``; -1 for none (the usual case: unprefixed).
        var namespace: Int32
        var value: String
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
        try tree.build(maximumDepth: maximumDepth)
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
                if attribute.namespace >= 0, namespaces[Int(attribute.namespace)] == namespace { return attribute.value }
            } else if attribute.namespace < 0 {
                return attribute.value
            }
        }
        return nil
    }

    /// The text inside an element and its descendants, references decoded, tags dropped,
    /// white space at either end removed.
    func text(of element: Int) -> String {
        let item = elements[element]
        if !item.hasMarkup {
            return XMLText.trimmed(bytes[item.content])
        }
        return XMLText.trimmed(XMLText.decode(bytes[item.content]))
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
        [UInt8]((try? DocumentEncoding.utf8(data)) ?? data)
    }

    private mutating func build(maximumDepth: Int) throws(Failure) {
        var scanner = XMLScanner(bytes: bytes)
        var open: [(element: Int, nameStart: Int, nameEnd: Int, bindings: Int)] = []
        var bindings: [(prefix: [UInt8], namespace: Int32)] = [(Array("xml".utf8), Int32(internNamespace("http://www.w3.org/XML/1998/namespace")))]
        var lastChild: [Int] = []
        var rawAttributes: [(nameStart: Int, nameEnd: Int, value: String)] = []
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
                    if name.elementsEqual("xmlns".utf8) {
                        bindings.append(([], Int32(internNamespace(attribute.value))))
                    } else if name.starts(with: "xmlns:".utf8) {
                        bindings.append((Array(name.dropFirst(6)), Int32(internNamespace(attribute.value))))
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
                    attributes.append(Attribute(name: String(decoding: attributeLocal, as: UTF8.self), namespace: attributeNamespace, value: attribute.value))
                }
                let index = elements.count
                let parent = open.last?.element ?? -1
                elements.append(Element(
                    name: String(decoding: local, as: UTF8.self), namespace: namespace, parent: Int32(parent),
                    attributes: attributeStart..<Int32(attributes.count), content: scanner.index..<scanner.index))
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
                    bindings.removeSubrange(bindingCount...)
                } else {
                    open.append((index, nameStart, nameEnd, bindingCount))
                    if lastChild.count < open.count { lastChild.append(-1) } else { lastChild[open.count - 1] = -1 }
                }
            case .endTag(let nameStart, let nameEnd, let tagStart):
                guard let top = open.popLast() else { throw scanner.failure("an end tag has no start tag") }
                guard bytes[nameStart..<nameEnd].elementsEqual(bytes[top.nameStart..<top.nameEnd]) else {
                    throw scanner.failure("</\(String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self))> closes <\(String(decoding: bytes[top.nameStart..<top.nameEnd], as: UTF8.self))>")
                }
                elements[top.element].content = elements[top.element].content.lowerBound..<tagStart
                bindings.removeSubrange(top.bindings...)
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

    private static func split(_ name: ArraySlice<UInt8>) -> (prefix: ArraySlice<UInt8>, local: ArraySlice<UInt8>) {
        guard let colon = name.firstIndex(of: UInt8(ascii: ":")) else { return (name[name.startIndex..<name.startIndex], name) }
        return (name[..<colon], name[(colon + 1)...])
    }

    /// The namespace a prefix is bound to, innermost first; an unprefixed attribute has none.
    private static func resolve(_ prefix: ArraySlice<UInt8>, in bindings: [(prefix: [UInt8], namespace: Int32)], isElement: Bool) -> Int32? {
        for binding in bindings.reversed() where binding.prefix.elementsEqual(prefix) {
            return binding.namespace
        }
        return prefix.isEmpty ? -1 : nil
    }
}

/// Steps through XML bytes one token at a time.
private struct XMLScanner {
    enum Token {
        case startTag(nameStart: Int, nameEnd: Int, selfClosing: Bool)
        case endTag(nameStart: Int, nameEnd: Int, tagStart: Int)
        case text(hasMarkup: Bool)
        /// A comment, CDATA section or processing instruction inside an element.
        case markupInText
    }

    let bytes: [UInt8]
    var index = 0
    /// Where the current start tag's attributes begin.
    private var attributeStart = 0
    private var attributeEnd = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var line: Int { 1 + bytes[..<min(index, bytes.count)].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }

    func failure(_ reason: String) -> XMLTree.Failure {
        XMLTree.Failure(kind: .malformed(reason), line: line)
    }

    mutating func skipByteOrderMark() {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
    }

    mutating func nextToken(inElement: Bool) throws(XMLTree.Failure) -> Token? {
        let count = bytes.count
        while index < count {
            if bytes[index] != UInt8(ascii: "<") {
                // Text up to the next tag.
                var hasMarkup = false
                let start = index
                while index < count, bytes[index] != UInt8(ascii: "<") {
                    if bytes[index] == UInt8(ascii: "&") { hasMarkup = true }
                    index += 1
                }
                if !inElement {
                    if bytes[start..<index].contains(where: { !XMLText.isSpace($0) }) { throw failure("there is text outside the root element") }
                    continue
                }
                return .text(hasMarkup: hasMarkup)
            }
            guard index + 1 < count else { throw failure("the document ends inside a tag") }
            switch bytes[index + 1] {
            case UInt8(ascii: "?"):
                try skip(past: Array("?>".utf8), what: "a processing instruction")
                if inElement { return .markupInText }
            case UInt8(ascii: "!"):
                if matches("<!--") {
                    try skip(past: Array("-->".utf8), what: "a comment")
                    if inElement { return .markupInText }
                } else if matches("<![CDATA[") {
                    guard inElement else { throw failure("a CDATA section outside the root element") }
                    try skip(past: Array("]]>".utf8), what: "a CDATA section")
                    return .markupInText
                } else if matches("<!DOCTYPE") {
                    try skipDoctype()
                } else {
                    throw failure("an unknown declaration")
                }
            case UInt8(ascii: "/"):
                let tagStart = index
                index += 2
                let nameStart = index
                while index < count, XMLText.isNameByte(bytes[index]) { index += 1 }
                let nameEnd = index
                while index < count, XMLText.isSpace(bytes[index]) { index += 1 }
                guard index < count, bytes[index] == UInt8(ascii: ">"), nameEnd > nameStart else { throw failure("a malformed end tag") }
                index += 1
                return .endTag(nameStart: nameStart, nameEnd: nameEnd, tagStart: tagStart)
            default:
                index += 1
                let nameStart = index
                while index < count, XMLText.isNameByte(bytes[index]) { index += 1 }
                let nameEnd = index
                guard nameEnd > nameStart else { throw failure("a malformed start tag") }
                attributeStart = index
                // Find the tag's end, stepping over quoted values (which may hold `>`).
                var quote: UInt8 = 0
                while index < count {
                    let byte = bytes[index]
                    if quote != 0 {
                        if byte == quote { quote = 0 }
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                    } else if byte == UInt8(ascii: ">") {
                        break
                    } else if byte == UInt8(ascii: "<") {
                        throw failure("a start tag is not closed")
                    }
                    index += 1
                }
                guard index < count else { throw failure("the document ends inside a tag") }
                let selfClosing = bytes[index - 1] == UInt8(ascii: "/") && index - 1 >= attributeStart
                attributeEnd = selfClosing ? index - 1 : index
                index += 1
                return .startTag(nameStart: nameStart, nameEnd: nameEnd, selfClosing: selfClosing)
            }
        }
        return nil
    }

    /// The attributes of the start tag just read, values decoded.
    func attributes(into list: inout [(nameStart: Int, nameEnd: Int, value: String)]) throws(XMLTree.Failure) {
        var position = attributeStart
        while true {
            while position < attributeEnd, XMLText.isSpace(bytes[position]) { position += 1 }
            guard position < attributeEnd else { return }
            let nameStart = position
            while position < attributeEnd, XMLText.isNameByte(bytes[position]) { position += 1 }
            let nameEnd = position
            while position < attributeEnd, XMLText.isSpace(bytes[position]) { position += 1 }
            guard nameEnd > nameStart, position < attributeEnd, bytes[position] == UInt8(ascii: "=") else {
                throw failure("a malformed attribute")
            }
            position += 1
            while position < attributeEnd, XMLText.isSpace(bytes[position]) { position += 1 }
            guard position < attributeEnd, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
                throw failure("an attribute value without quotes")
            }
            let quote = bytes[position]
            position += 1
            let valueStart = position
            while position < attributeEnd, bytes[position] != quote { position += 1 }
            guard position < attributeEnd else { throw failure("an attribute value is not closed") }
            let raw = bytes[valueStart..<position]
            position += 1
            let value = raw.contains(UInt8(ascii: "&")) ? XMLText.decode(raw, attribute: true) : String(decoding: raw, as: UTF8.self)
            list.append((nameStart, nameEnd, value))
        }
    }

    private func matches(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return memcmp(text.utf8Start, bytes.withUnsafeBufferPointer { $0.baseAddress! + index }, count) == 0
    }

    private mutating func skip(past end: [UInt8], what: String) throws(XMLTree.Failure) {
        let last = bytes.count - end.count
        var position = index + 2
        while position <= last {
            if bytes[position] == end[0], bytes[position..<position + end.count].elementsEqual(end) {
                index = position + end.count
                return
            }
            position += 1
        }
        throw failure("\(what) is not closed")
    }

    /// A document type declaration is skipped, its external DTD never fetched; one that declares
    /// an entity is refused, which rules out every expansion attack.
    private mutating func skipDoctype() throws(XMLTree.Failure) {
        var position = index + 9
        var inSubset = false
        var quote: UInt8 = 0
        while position < bytes.count {
            let byte = bytes[position]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                inSubset = true
            } else if byte == UInt8(ascii: "]") {
                inSubset = false
            } else if inSubset, byte == UInt8(ascii: "<"), bytes[position...].starts(with: "<!ENTITY".utf8) {
                index = position
                throw XMLTree.Failure(kind: .entityDeclaration, line: line)
            } else if !inSubset, byte == UInt8(ascii: ">") {
                index = position + 1
                return
            }
            position += 1
        }
        throw failure("the document type declaration is not closed")
    }
}

/// Decoding of XML text: references, CDATA, and the tags inside mixed content.
enum XMLText {
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: ":"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return byte >= 0x80
        }
    }

    static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    static func trimmed(_ text: String) -> String {
        trimmed(ArraySlice(text.utf8))
    }

    /// Content with its tags dropped (tags separate words), comments and processing instructions
    /// skipped, CDATA kept as it is, and references decoded.
    static func decode(_ bytes: ArraySlice<UInt8>, attribute: Bool = false) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        let end = bytes.endIndex
        func starts(_ text: String, at position: Int) -> Bool { bytes[position...].starts(with: text.utf8) }
        func find(_ text: String, from position: Int) -> Int? {
            var position = position
            let needle = Array(text.utf8)
            while position + needle.count <= end {
                if bytes[position] == needle[0], bytes[position..<position + needle.count].elementsEqual(needle) { return position }
                position += 1
            }
            return nil
        }
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<"), !attribute {
                if starts("<![CDATA[", at: index) {
                    let close = find("]]>", from: index + 9) ?? end
                    output.append(contentsOf: bytes[(index + 9)..<close])
                    index = min(end, close + 3)
                } else if starts("<!--", at: index) {
                    index = min(end, (find("-->", from: index + 4) ?? end) + 3)
                } else if starts("<?", at: index) {
                    index = min(end, (find("?>", from: index + 2) ?? end) + 2)
                } else {
                    // A tag: it ends a word, so that `<p>One</p><p>Two</p>` reads "One Two".
                    var position = index + 1
                    var quote: UInt8 = 0
                    while position < end {
                        let current = bytes[position]
                        if quote != 0 { if current == quote { quote = 0 } }
                        else if current == UInt8(ascii: "\"") || current == UInt8(ascii: "'") { quote = current }
                        else if current == UInt8(ascii: ">") { break }
                        position += 1
                    }
                    if let last = output.last, !isSpace(last) { output.append(0x20) }
                    index = min(end, position + 1)
                }
            } else if byte == UInt8(ascii: "&"),
                      let semicolon = bytes[index..<min(end, index + HTMLEntities.longestName + 2)].firstIndex(of: UInt8(ascii: ";")) {
                let name = bytes[(index + 1)..<semicolon]
                if let text = reference(name) {
                    output.append(contentsOf: text.utf8)
                } else {
                    output.append(contentsOf: bytes[index...semicolon])
                }
                index = semicolon + 1
            } else {
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `#38`, `#x26`, the five XML names, and HTML's names, which feeds use without declaring
    /// them: each stands for one character (one or two code points), never more.
    static func reference(_ name: ArraySlice<UInt8>) -> String? {
        guard let first = name.first else { return nil }
        if first == UInt8(ascii: "#") {
            let digits = name.dropFirst()
            let value: UInt32?
            if digits.first == UInt8(ascii: "x") || digits.first == UInt8(ascii: "X") {
                value = UInt32(String(decoding: digits.dropFirst(), as: UTF8.self), radix: 16)
            } else {
                value = UInt32(String(decoding: digits, as: UTF8.self))
            }
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return String(Character(scalar))
        }
        let text = String(decoding: name, as: UTF8.self)
        switch text {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default: return HTMLEntities.value(of: text)
        }
    }
}
