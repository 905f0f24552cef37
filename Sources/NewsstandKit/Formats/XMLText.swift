import Foundation

/// Decoding of XML text: references, CDATA, and the tags inside mixed content.
enum XMLText {
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Whether `byte` may be in a name: an ASCII letter or digit, `:`, `_`, `-`, `.`, or any byte
    /// of a non-ASCII character.
    @inline(__always)
    static func isNameByte(_ byte: UInt8) -> Bool {
        // By bit: a switch of ranges tested digits, then letters, then the rest, for every byte
        // of every name in a feed.
        // `-`, `.`, `0` to `9` and `:`, as bits of the bytes 0 to 63.
        let below64: UInt64 = 1 << 45 | 1 << 46 | 0x7FF << 48
        // `A` to `Z`, `_` and `a` to `z`, as bits of the bytes 64 to 127.
        let from64: UInt64 = 0x3FF_FFFF << 1 | 1 << 31 | 0x3FF_FFFF << 33
        if byte < 64 { return below64 >> byte & 1 == 1 }
        if byte < 128 { return from64 >> (byte - 64) & 1 == 1 }
        return true
    }

    static func trimmed<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8, Bytes.Index == Int {
        var start = bytes.startIndex, end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// `text` for an XML attribute or element: `&`, `<`, `>` and `"` escaped. By bytes: the four
    /// are ASCII, which no other character's UTF-8 contains, and most text has none of them (a
    /// walk by characters was a fifth of publishing 10,000 issues).
    static func escaped(_ text: String) -> String {
        func needsEscape(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"")
        }
        guard text.utf8.contains(where: needsEscape) else { return text }
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count + 16)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): result += "&amp;".utf8
            case UInt8(ascii: "<"): result += "&lt;".utf8
            case UInt8(ascii: ">"): result += "&gt;".utf8
            case UInt8(ascii: "\""): result += "&quot;".utf8
            default: result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    static func trimmed(_ text: String) -> String {
        // Most decoded text has no space at either end: kept as it is, not copied.
        let utf8 = text.utf8
        guard let first = utf8.first, let last = utf8.last, isSpace(first) || isSpace(last) else { return text }
        var start = utf8.startIndex, end = utf8.endIndex
        while start < end, isSpace(utf8[start]) { start = utf8.index(after: start) }
        while end > start, isSpace(utf8[utf8.index(before: end)]) { end = utf8.index(before: end) }
        return String(text[start..<end])
    }

    /// HTML's inline elements: their tags sit inside a word as often as between two.
    private static let inlineTags: Set<String> = [
        "a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd", "mark", "q", "s", "samp",
        "small", "span", "strong", "sub", "sup", "time", "tt", "u", "var",
    ]

    /// Whether the tag after a `<` (`b`, `/strong`, `span class="x"`) is an inline element's.
    private static func isInlineTag<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8, Bytes.Index == Int {
        var index = bytes.startIndex
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "/") { index += 1 }
        var name: [UInt8] = []
        while index < bytes.endIndex, name.count < 8 {
            let byte = bytes[index] | 0x20
            guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) else { break }
            name.append(byte)
            index += 1
        }
        return !name.isEmpty && inlineTags.contains(String(decoding: name, as: UTF8.self))
    }

    /// Content with its tags dropped (tags separate words), comments and processing instructions
    /// skipped, CDATA kept as it is, and references decoded.
    static func decode<Bytes: RandomAccessCollection>(_ bytes: Bytes, attribute: Bool = false) -> String
    where Bytes.Element == UInt8, Bytes.Index == Int {
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
            // The text up to the next `<` or `&` (in an attribute, the next `&`) is copied at once:
            // a byte at a time, each append checked the array's room, and that was most of
            // decoding a title with one `&amp;`.
            var plain = index
            while plain < end, bytes[plain] != UInt8(ascii: "&"), attribute || bytes[plain] != UInt8(ascii: "<") { plain += 1 }
            if plain > index {
                output.append(contentsOf: bytes[index..<plain])
                index = plain
                continue
            }
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
                    // A tag ends a word, so that `<p>One</p><p>Two</p>` reads "One Two"; an inline
                    // one does not, so that `<b>Mars</b>.` reads "Mars.".
                    let separates = !isInlineTag(bytes[(index + 1)..<end])
                    var position = index + 1
                    var quote: UInt8 = 0
                    while position < end {
                        let current = bytes[position]
                        if quote != 0 { if current == quote { quote = 0 } }
                        else if current == UInt8(ascii: "\"") || current == UInt8(ascii: "'") { quote = current }
                        else if current == UInt8(ascii: ">") { break }
                        position += 1
                    }
                    if separates, let last = output.last, !isSpace(last) { output.append(0x20) }
                    index = min(end, position + 1)
                }
            } else if byte == UInt8(ascii: "&"), let semicolon = referenceEnd(bytes, from: index) {
                let name = bytes[(index + 1)..<semicolon]
                if let character = xmlReference(name) {
                    output.append(character)
                } else if let text = reference(name) {
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

    /// The `;` that ends a reference begun by the `&` at `start`: the first byte after a name of
    /// letters, digits or `#`, no longer than HTML's longest; nil when there is none. A `;` after
    /// a space or another `&` ends no reference (`Fish & chips &amp; more` has one, the second).
    private static func referenceEnd<Bytes: RandomAccessCollection>(_ bytes: Bytes, from start: Int) -> Int? where Bytes.Element == UInt8, Bytes.Index == Int {
        let limit = min(bytes.endIndex, start + HTMLEntities.longestName + 2)
        var position = start + 1
        while position < limit {
            switch bytes[position] {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "#"):
                position += 1
            case UInt8(ascii: ";"):
                return position > start + 1 ? position : nil
            default:
                return nil
            }
        }
        return nil
    }

    /// The character one of XML's five names stands for, told from its bytes (no string made for
    /// the name): the references most text has.
    private static func xmlReference<Bytes: RandomAccessCollection>(_ name: Bytes) -> UInt8? where Bytes.Element == UInt8, Bytes.Index == Int {
        let start = name.startIndex
        func byte(_ offset: Int) -> UInt8 { name[start + offset] }
        switch name.count {
        case 2 where byte(1) == UInt8(ascii: "t"):
            return byte(0) == UInt8(ascii: "l") ? UInt8(ascii: "<") : byte(0) == UInt8(ascii: "g") ? UInt8(ascii: ">") : nil
        case 3 where byte(0) == UInt8(ascii: "a") && byte(1) == UInt8(ascii: "m") && byte(2) == UInt8(ascii: "p"):
            return UInt8(ascii: "&")
        case 4 where byte(0) == UInt8(ascii: "q") && byte(1) == UInt8(ascii: "u") && byte(2) == UInt8(ascii: "o") && byte(3) == UInt8(ascii: "t"):
            return UInt8(ascii: "\"")
        case 4 where byte(0) == UInt8(ascii: "a") && byte(1) == UInt8(ascii: "p") && byte(2) == UInt8(ascii: "o") && byte(3) == UInt8(ascii: "s"):
            return UInt8(ascii: "'")
        default:
            return nil
        }
    }

    /// `#38`, `#x26`, and HTML's names, which feeds use without declaring them: each stands for
    /// one character (one or two code points), never more. XML's five are told apart before
    /// (``xmlReference(_:)``); HTML's table has them too.
    private static func reference<Bytes: RandomAccessCollection>(_ name: Bytes) -> String? where Bytes.Element == UInt8, Bytes.Index == Int {
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
        return HTMLEntities.value(of: String(decoding: name, as: UTF8.self))
    }
}
