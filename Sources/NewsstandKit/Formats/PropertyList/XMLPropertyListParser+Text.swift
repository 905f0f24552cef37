import Foundation

extension XMLPropertyListParser {
    // MARK: Text

    /// Reads a number or date element: `read` sees its text without surrounding white space,
    /// straight from the file when it has no entities. Also returns the text, for a message.
    mutating func scalar<T>(
        _ tag: Tag, empty: Bool, _ read: (UnsafeBufferPointer<UInt8>) -> T?
    ) throws(PropertyListError) -> (T?, String) {
        if empty { return (read(UnsafeBufferPointer(start: nil, count: 0)), "") }
        let start = index
        if let end = find(UInt8(ascii: "<"), from: index), find(UInt8(ascii: "&"), from: start, to: end) == nil {
            var first = start, last = end
            while first < last, Self.isSpace(bytes[first]) { first += 1 }
            while last > first, Self.isSpace(bytes[last - 1]) { last -= 1 }
            let trimmed = UnsafeBufferPointer(rebasing: bytes[first..<last])
            let value = read(trimmed)
            index = end
            try closeTag(tag)
            return (value, value == nil ? String(decoding: trimmed, as: UTF8.self) : "")
        }
        let text = try self.text(closing: tag).trimmingCharacters(in: .whitespacesAndNewlines)
        return (Array(text.utf8).withUnsafeBufferPointer(read), text)
    }

    /// Reads character data up to `</tag>`, decoding entities and CDATA sections.
    mutating func text(closing tag: Tag) throws(PropertyListError) -> String {
        let start = index
        guard let end = find(UInt8(ascii: "<"), from: index) else { throw failure("the property list ends inside <\(tag)>") }
        if find(UInt8(ascii: "&"), from: start, to: end) == nil, end + 1 < bytes.count, bytes[end + 1] == UInt8(ascii: "/") {
            index = end
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            try closeTag(tag)
            return text
        }
        var decoded: [UInt8] = []
        while true {
            guard index < bytes.count else { throw failure("the property list ends inside <\(tag)>") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "&") {
                try entity(into: &decoded)
            } else if byte == UInt8(ascii: "<") {
                if atClosingTag { break }
                if starts(with: "<![CDATA[") {
                    index += 9
                    guard let close = find("]]>") else { throw failure("an unterminated CDATA section") }
                    decoded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<close]))
                    index = close + 3
                } else if starts(with: "<!--") {
                    guard let close = find("-->") else { throw failure("an unterminated comment") }
                    index = close + 3
                } else {
                    throw failure("an element inside <\(tag)>")
                }
            } else {
                decoded.append(byte)
                index += 1
            }
        }
        try closeTag(tag)
        return String(decoding: decoded, as: UTF8.self)
    }

    mutating func entity(into decoded: inout [UInt8]) throws(PropertyListError) {
        guard let semicolon = find(UInt8(ascii: ";"), from: index, to: min(bytes.count, index + 12)) else {
            throw failure("a bare & (write &amp;)")
        }
        let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[(index + 1)..<semicolon]), as: UTF8.self)
        index = semicolon + 1
        switch name {
        case "amp": decoded.append(UInt8(ascii: "&"))
        case "lt": decoded.append(UInt8(ascii: "<"))
        case "gt": decoded.append(UInt8(ascii: ">"))
        case "quot": decoded.append(UInt8(ascii: "\""))
        case "apos": decoded.append(UInt8(ascii: "'"))
        default:
            var scalar: Unicode.Scalar?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                scalar = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
            } else if name.hasPrefix("#") {
                scalar = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
            }
            guard let scalar, scalar.value != 0 else { throw failure("an unknown entity &\(Self.shown(name));") }
            decoded.append(contentsOf: String(Character(scalar)).utf8)
        }
    }
}
