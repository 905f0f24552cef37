import Foundation

/// Steps through XML bytes one token at a time.
///
/// It reads the bytes of an ``XMLTree`` while that tree is being built, through a pointer the
/// tree keeps alive: the checked array subscript was a sixth of a parse.
struct XMLScanner {
    enum Token {
        case startTag(nameStart: Int, nameEnd: Int, selfClosing: Bool)
        case endTag(nameStart: Int, nameEnd: Int, tagStart: Int)
        case text(hasMarkup: Bool)
        /// A comment, CDATA section or processing instruction inside an element.
        case markupInText
    }

    /// An attribute of the start tag just read: where its name and raw value lie.
    struct RawAttribute {
        var nameStart: Int
        var nameEnd: Int
        var valueStart: Int
        var valueEnd: Int
        /// Whether the value holds a reference (`&amp;`) and needs decoding.
        var hasReference: Bool
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    /// Where the current start tag's attributes begin.
    private var attributeStart = 0
    private var attributeEnd = 0
    /// The current start tag's attributes, the first `wellFormedCount`, when they were read with
    /// the tag (`attributesRead`); else ``attributes(into:)`` reads them. The list keeps its
    /// room and is written over: emptied each tag, it was a twentieth of a parse.
    private(set) var wellFormed: [RawAttribute] = []
    private(set) var wellFormedCount = 0
    private(set) var attributesRead = false

    init(bytes: UnsafeBufferPointer<UInt8>) {
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
                let start = index
                index = bytes.firstIndex(of: UInt8(ascii: "<"), from: start, to: count) ?? count
                let hasMarkup = bytes.firstIndex(of: UInt8(ascii: "&"), from: start, to: index) != nil
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
                if let (end, selfClosing) = readWellFormedAttributes(from: index) {
                    attributeEnd = selfClosing ? end - 1 : end
                    index = end + 1
                    return .startTag(nameStart: nameStart, nameEnd: nameEnd, selfClosing: selfClosing)
                }
                // Anything unusual is read again the careful way, which words its failures.
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

    /// The attributes of the start tag just read.
    func attributes(into list: inout [RawAttribute]) throws(XMLTree.Failure) {
        if attributesRead {
            list.append(contentsOf: wellFormed[..<wellFormedCount])
            return
        }
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
            let valueEnd = position
            position += 1
            let hasReference = UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd]).contains(UInt8(ascii: "&"))
            list.append(RawAttribute(nameStart: nameStart, nameEnd: nameEnd, valueStart: valueStart, valueEnd: valueEnd, hasReference: hasReference))
        }
    }

    /// A start tag's attributes and end (`>`, or the `>` of `/>`) read in one pass, when all is
    /// well formed: the tag was stepped through twice (its end found, then its attributes read).
    /// Nil, with nothing read, at anything else (a missing quote, a stray `<`, the end of the
    /// document), for ``nextToken(inElement:)`` to read and word as it always has.
    private mutating func readWellFormedAttributes(from start: Int) -> (end: Int, selfClosing: Bool)? {
        let count = bytes.count
        var position = start
        wellFormedCount = 0
        attributesRead = false
        while true {
            while position < count, XMLText.isSpace(bytes[position]) { position += 1 }
            guard position < count else { return nil }
            if bytes[position] == UInt8(ascii: ">") {
                attributesRead = true
                return (position, false)
            }
            if bytes[position] == UInt8(ascii: "/") {
                guard position + 1 < count, bytes[position + 1] == UInt8(ascii: ">") else { return nil }
                attributesRead = true
                return (position + 1, true)
            }
            let nameStart = position
            while position < count, XMLText.isNameByte(bytes[position]) { position += 1 }
            let nameEnd = position
            while position < count, XMLText.isSpace(bytes[position]) { position += 1 }
            guard nameEnd > nameStart, position < count, bytes[position] == UInt8(ascii: "=") else { return nil }
            position += 1
            while position < count, XMLText.isSpace(bytes[position]) { position += 1 }
            guard position < count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else { return nil }
            let valueStart = position + 1
            guard let valueEnd = bytes.firstIndex(of: bytes[position], from: valueStart, to: count) else { return nil }
            let attribute = RawAttribute(nameStart: nameStart, nameEnd: nameEnd, valueStart: valueStart, valueEnd: valueEnd,
                                         hasReference: bytes.firstIndex(of: UInt8(ascii: "&"), from: valueStart, to: valueEnd) != nil)
            if wellFormedCount < wellFormed.count {
                wellFormed[wellFormedCount] = attribute
            } else {
                wellFormed.append(attribute)
            }
            wellFormedCount += 1
            position = valueEnd + 1
        }
    }

    private func matches(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return memcmp(text.utf8Start, bytes.baseAddress! + index, count) == 0
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
