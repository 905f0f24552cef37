import Foundation

extension XMLTree {
    /// Builds a tree's arrays from its bytes, one token at a time.
    ///
    /// A builder reads either a whole document, or — for ``XMLTreeSecondHalf`` — the part of it
    /// that begins inside elements another builder opened (its *context*), up to the end tag of
    /// the innermost of them, which it leaves unread. Its own elements are numbered from 0; a
    /// child of the context's innermost element names ``contextParent`` as its parent, for the
    /// builder of the first half, which alone knows that element's index, to fill in.
    struct Builder {
        struct Open {
            var element: Int
            var nameStart: Int
            var nameEnd: Int
            var bindings: Int
        }

        struct Binding {
            var prefix: [UInt8]
            var namespace: Int32
        }

        /// The parent of an element whose parent is the innermost element of the context.
        static let contextParent = -2
        /// An element of the context further out, which a half's elements never name.
        private static let outerContext = -3

        let bytes: UnsafeBufferPointer<UInt8>
        let maximumDepth: Int
        var scanner: XMLScanner
        var elements: [Element] = []
        var attributes: [Attribute] = []
        /// A second half's elements and attributes, kept where it read them (``XMLTree/Segments``).
        private(set) var appendedElements: [Element] = []
        private(set) var appendedAttributes: [Attribute] = []
        /// Namespace URIs in the order first met.
        var namespaces: [String] = []
        var hasXMLBase = false
        var open: [Open] = []
        var bindings: [Binding] = []
        var lastChild: [Int] = []
        private var rawAttributes: [XMLScanner.RawAttribute] = []

        // A half begun inside a context: how deep it is, which of the half's elements are the
        // innermost context element's children, whether that element holds markup in this half,
        // and where the context's end tag starts (nil until the half has reached it).
        let contextDepth: Int
        /// How many namespaces a half was given (the rest it met itself).
        let inheritedNamespaces: Int
        var firstContextChild = -1
        var lastContextChild = -1
        var markupInContext = false
        var stop: Int?

        /// A builder of a whole document, with room for the elements of its first `extent` bytes
        /// (all of them unless a second half reads the rest).
        init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int, extent: Int? = nil) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
            scanner = XMLScanner(bytes: bytes)
            contextDepth = 0
            inheritedNamespaces = 0
            let room = Self.room(in: bytes, from: 0, to: extent ?? bytes.count)
            elements.reserveCapacity(room.elements)
            attributes.reserveCapacity(room.attributes)
            bindings = [Binding(prefix: Array("xml".utf8), namespace: Int32(internNamespace("http://www.w3.org/XML/1998/namespace")))]
            scanner.skipByteOrderMark()
        }

        /// A builder of the part of `first`'s document from `start`, inside the elements `first`
        /// has open now.
        init(continuing first: Builder, from start: Int) {
            bytes = first.bytes
            maximumDepth = first.maximumDepth
            scanner = XMLScanner(bytes: bytes)
            scanner.index = start
            contextDepth = first.open.count
            namespaces = first.namespaces
            inheritedNamespaces = first.namespaces.count
            bindings = first.bindings
            open = first.open.enumerated().map { level, item in
                Open(element: level == first.open.count - 1 ? Self.contextParent : Self.outerContext,
                     nameStart: item.nameStart, nameEnd: item.nameEnd, bindings: item.bindings)
            }
            lastChild = Array(repeating: -1, count: first.open.count)
            let room = Self.room(in: bytes, from: start, to: bytes.count)
            elements.reserveCapacity(room.elements)
            attributes.reserveCapacity(room.attributes)
        }

        /// How many elements and attributes to make room for in `bytes[start..<end]`, reckoned
        /// from the tags and `="` in its first 64 KiB, with a fifth to spare. Growing lists of a
        /// few hundred thousand items, moved at each doubling, cost a seventh of the parse; room
        /// reserved and never used is not touched, but the 2 MiB pages it straddles are. A
        /// fixed guess (a tag every 40 bytes, reckoned on the whole document) was nearly three
        /// times too much for the first half of a feed of calibre's shape, and too little for
        /// one of short items. Never more than one item in
        /// 20 bytes: a document of nothing but empty tags grows its lists instead of reserving
        /// gigabytes.
        static func room(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> (elements: Int, attributes: Int) {
            let sampleEnd = min(end, start + (64 << 10))
            guard sampleEnd > start else { return (16, 16) }
            var tags = 0
            var values = 0
            var index = start
            while index + 1 < sampleEnd {
                let byte = bytes[index]
                let next = bytes[index + 1]
                if byte == UInt8(ascii: "<") && next != UInt8(ascii: "/") && next != UInt8(ascii: "!") && next != UInt8(ascii: "?") {
                    tags += 1
                } else if byte == UInt8(ascii: "=") && (next == UInt8(ascii: "\"") || next == UInt8(ascii: "'")) {
                    values += 1
                }
                index += 1
            }
            let scale = Double(end - start) / Double(sampleEnd - start) * 1.2
            let most = (end - start) / 20
            return (min(Int(Double(tags) * scale), most) + 16, min(Int(Double(values) * scale), most) + 16)
        }

        /// Reads and applies the next token; returns it, or nil at the end of the document (or of
        /// a half's context).
        @discardableResult
        mutating func step() throws(Failure) -> XMLScanner.Token? {
            guard let token = try scanner.nextToken(inElement: !open.isEmpty) else { return nil }
            switch token {
            case .text(let hasMarkup):
                guard let top = open.last else {
                    throw scanner.failure("there is text outside the root element")
                }
                if hasMarkup { markHasMarkup(top.element) }
            case .startTag(let nameStart, let nameEnd, let selfClosing):
                try startTag(nameStart: nameStart, nameEnd: nameEnd, selfClosing: selfClosing)
            case .endTag(let nameStart, let nameEnd, let tagStart):
                if contextDepth > 0, open.count == contextDepth {
                    // The context's own end tag: the first half reads it.
                    stop = tagStart
                    return nil
                }
                guard let top = open.popLast() else { throw scanner.failure("an end tag has no start tag") }
                guard nameEnd - nameStart == top.nameEnd - top.nameStart,
                      memcmp(bytes.baseAddress! + nameStart, bytes.baseAddress! + top.nameStart, nameEnd - nameStart) == 0 else {
                    throw scanner.failure("</\(String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self))> closes <\(String(decoding: bytes[top.nameStart..<top.nameEnd], as: UTF8.self))>")
                }
                elements[top.element].content = elements[top.element].content.lowerBound..<Int32(tagStart)
                if bindings.count > top.bindings { bindings.removeSubrange(top.bindings...) }
            case .markupInText:
                if let top = open.last { markHasMarkup(top.element) }
            }
            return token
        }

        /// Checks that the document ended well.
        func finish() throws(Failure) {
            if let top = open.last {
                throw scanner.failure("the document ends inside <\(String(decoding: bytes[top.nameStart..<top.nameEnd], as: UTF8.self))>")
            }
            guard !elements.isEmpty else { throw scanner.failure("there is no root element") }
        }

        private mutating func markHasMarkup(_ element: Int) {
            if element >= 0 {
                elements[element].hasMarkup = true
            } else if element == Self.contextParent {
                markupInContext = true
            }
        }

        private mutating func startTag(nameStart: Int, nameEnd: Int, selfClosing: Bool) throws(Failure) {
            if open.isEmpty, !elements.isEmpty { throw scanner.failure("there is more than one root element") }
            // An element after a second half (past its context's end): rare enough to copy for.
            if !appendedElements.isEmpty || !appendedAttributes.isEmpty {
                elements += appendedElements
                attributes += appendedAttributes
                appendedElements = []
                appendedAttributes = []
            }
            guard open.count < maximumDepth else { throw Failure(kind: .tooDeep(maximumDepth), line: scanner.line) }
            // Attributes read with the tag are read where the scanner keeps them, by index: a
            // slice of the list held its buffer, retained and released for every tag.
            if !scanner.attributesRead {
                rawAttributes.removeAll(keepingCapacity: true)
                try scanner.attributes(into: &rawAttributes)
            }
            let attributeCount = scanner.attributesRead ? scanner.wellFormedCount : rawAttributes.count
            let bindingCount = bindings.count
            for position in 0..<attributeCount {
                let attribute = tagAttribute(position)
                // Most attributes are not declarations: their first byte says so.
                guard bytes[attribute.nameStart] == UInt8(ascii: "x") else { continue }
                let name = bytes[attribute.nameStart..<attribute.nameEnd]
                guard name.starts(with: "xmlns".utf8) else { continue }
                let raw = bytes[attribute.valueStart..<attribute.valueEnd]
                let uri = attribute.hasReference ? XMLText.decode(ArraySlice(raw), attribute: true) : String(decoding: raw, as: UTF8.self)
                if name.count == 5 {
                    bindings.append(Binding(prefix: [], namespace: Int32(internNamespace(uri))))
                } else if name.starts(with: "xmlns:".utf8) {
                    bindings.append(Binding(prefix: Array(name.dropFirst(6)), namespace: Int32(internNamespace(uri))))
                }
            }
            let (prefix, local) = Self.split(bytes[nameStart..<nameEnd])
            guard let namespace = Self.resolve(prefix, in: bindings, isElement: true) else {
                throw scanner.failure("the prefix \(String(decoding: prefix, as: UTF8.self)) is not declared")
            }
            let attributeStart = Int32(attributes.count)
            for position in 0..<attributeCount {
                let attribute = tagAttribute(position)
                let name = bytes[attribute.nameStart..<attribute.nameEnd]
                if bytes[attribute.nameStart] == UInt8(ascii: "x"), name.elementsEqual("xmlns".utf8) || name.starts(with: "xmlns:".utf8) { continue }
                let (attributePrefix, attributeLocal) = Self.split(name)
                // An undeclared attribute prefix is kept as no namespace rather than refused: feeds do it.
                let attributeNamespace = attributePrefix.isEmpty ? -1 : Self.resolve(attributePrefix, in: bindings, isElement: false) ?? -1
                // The `xml` prefix is bound first, to namespace 0.
                if attributeNamespace == 0, attributeLocal.elementsEqual("base".utf8) { hasXMLBase = true }
                attributes.append(Attribute(
                    name: Int32(attributeLocal.startIndex)..<Int32(attributeLocal.endIndex), namespace: attributeNamespace,
                    value: Int32(attribute.valueStart)..<Int32(attribute.valueEnd), hasReference: attribute.hasReference))
            }
            let index = elements.count
            let parent = open.last?.element ?? -1
            elements.append(Element(
                name: Int32(local.startIndex)..<Int32(local.endIndex), namespace: namespace, parent: Int32(parent),
                attributes: attributeStart..<Int32(attributes.count), content: Int32(scanner.index)..<Int32(scanner.index),
                nameHead: Element.head(of: local)))
            if !open.isEmpty {
                markHasMarkup(parent)
                let previous = lastChild[open.count - 1]
                if previous >= 0 {
                    elements[previous].nextSibling = Int32(index)
                } else if parent >= 0 {
                    elements[parent].firstChild = Int32(index)
                } else {
                    firstContextChild = index
                }
                lastChild[open.count - 1] = index
                if parent == Self.contextParent { lastContextChild = index }
            }
            if selfClosing {
                if bindings.count > bindingCount { bindings.removeSubrange(bindingCount...) }
            } else {
                open.append(Open(element: index, nameStart: nameStart, nameEnd: nameEnd, bindings: bindingCount))
                if lastChild.count < open.count { lastChild.append(-1) } else { lastChild[open.count - 1] = -1 }
            }
        }

        /// The current start tag's attribute at `position`.
        private func tagAttribute(_ position: Int) -> XMLScanner.RawAttribute {
            scanner.attributesRead ? scanner.wellFormed[position] : rawAttributes[position]
        }

        /// Appends what a half read after this builder's present position, which must be where
        /// the half began, inside the same elements. The half's arrays are renumbered in place
        /// (they were the half's alone) and kept apart, not copied.
        mutating func append(_ half: consuming Builder) {
            let elementOffset = Int32(elements.count)
            let attributeOffset = Int32(attributes.count)
            let inherited = Int32(half.inheritedNamespaces)
            // Namespaces the half met first are interned here, after this half's own, as one
            // builder reading on would have.
            let added = half.namespaces[Int(inherited)...].map { Int32(internNamespace($0)) }
            func namespace(_ index: Int32) -> Int32 { index < inherited ? index : added[Int(index - inherited)] }
            func element(_ index: Int32) -> Int32 { index < 0 ? index : index + elementOffset }
            let context = Int32(open[open.count - 1].element)
            var halfElements = half.elements
            var halfAttributes = half.attributes
            half.elements = []
            half.attributes = []
            halfElements.withUnsafeMutableBufferPointer { items in
                for index in items.indices {
                    items[index].namespace = namespace(items[index].namespace)
                    items[index].parent = items[index].parent == Int32(Self.contextParent) ? context : element(items[index].parent)
                    items[index].firstChild = element(items[index].firstChild)
                    items[index].nextSibling = element(items[index].nextSibling)
                    let range = items[index].attributes
                    items[index].attributes = range.lowerBound + attributeOffset..<range.upperBound + attributeOffset
                }
            }
            halfAttributes.withUnsafeMutableBufferPointer { items in
                for index in items.indices where items[index].namespace >= 0 {
                    items[index].namespace = namespace(items[index].namespace)
                }
            }
            if half.firstContextChild >= 0 {
                let previous = lastChild[open.count - 1]
                if previous >= 0 {
                    elements[previous].nextSibling = Int32(half.firstContextChild) + elementOffset
                } else {
                    elements[Int(context)].firstChild = Int32(half.firstContextChild) + elementOffset
                }
                lastChild[open.count - 1] = half.lastContextChild + Int(elementOffset)
            }
            if half.markupInContext { elements[Int(context)].hasMarkup = true }
            if half.hasXMLBase { hasXMLBase = true }
            appendedElements = halfElements
            appendedAttributes = halfAttributes
            scanner.index = half.stop ?? scanner.index
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
        private static func resolve(_ prefix: Slice<UnsafeBufferPointer<UInt8>>, in bindings: [Binding], isElement: Bool) -> Int32? {
            // By index, each binding read where it lies: a loop over the bindings copied each,
            // its prefix retained and released, for every element.
            var index = bindings.count
            while index > 0 {
                index -= 1
                guard bindings[index].prefix.count == prefix.count else { continue }
                if prefix.isEmpty || bindings[index].prefix.elementsEqual(prefix) { return bindings[index].namespace }
            }
            return prefix.isEmpty ? -1 : nil
        }
    }
}
