import Foundation

/// Where an XML feed's next page is, read from the feed's head before the feed itself is read:
/// the address of a `<link rel="next">` that stands before the first entry or item.
///
/// Only a guess, to start fetching that page while this one is read (fetching and reading one
/// after the other was half the time of a refresh of 100 pages). The page as read decides: a
/// guess it does not confirm is dropped. A head with an `xml:base` gives no guess.
enum NextPageHint {
    static func xml(_ data: Data, url: URL) -> String? {
        data.withUnsafeBytes { raw -> String? in
            guard let bytes = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            return href(in: UnsafeBufferPointer(start: bytes, count: raw.count))
        }.flatMap { XMLFeed.resolve($0, against: url) }
    }

    private static func href(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var scanner = XMLScanner(bytes: bytes)
        scanner.skipByteOrderMark()
        var depth = 0
        var attributes: [XMLScanner.RawAttribute] = []
        var found: String?
        func localName(_ start: Int, _ end: Int) -> UnsafeBufferPointer<UInt8> {
            let name = UnsafeBufferPointer(rebasing: bytes[start..<end])
            guard let colon = name.lastIndex(of: UInt8(ascii: ":")) else { return name }
            return UnsafeBufferPointer(rebasing: name[(colon + 1)...])
        }
        func value(_ attribute: XMLScanner.RawAttribute) -> String {
            let raw = ArraySlice(UnsafeBufferPointer(rebasing: bytes[attribute.valueStart..<attribute.valueEnd]))
            return attribute.hasReference ? XMLText.decode(raw, attribute: true) : String(decoding: raw, as: UTF8.self)
        }
        while let token = try? scanner.nextToken(inElement: depth > 0) {
            switch token {
            case .startTag(let nameStart, let nameEnd, let selfClosing):
                let name = localName(nameStart, nameEnd)
                if depth >= 1, name.elementsEqual("entry".utf8) || name.elementsEqual("item".utf8) { return found }
                attributes.removeAll(keepingCapacity: true)
                guard (try? scanner.attributes(into: &attributes)) != nil else { return nil }
                for attribute in attributes where bytes[attribute.nameStart..<attribute.nameEnd].elementsEqual("xml:base".utf8) {
                    return nil
                }
                if (1...2).contains(depth), name.elementsEqual("link".utf8), found == nil {
                    var rel: String?
                    var href: String?
                    for attribute in attributes {
                        let attributeName = bytes[attribute.nameStart..<attribute.nameEnd]
                        if attributeName.elementsEqual("rel".utf8) { rel = value(attribute) }
                        if attributeName.elementsEqual("href".utf8) { href = value(attribute) }
                    }
                    if rel == "next" { found = href }
                }
                if !selfClosing { depth += 1 }
            case .endTag:
                depth -= 1
                if depth <= 0 { return found }
            case .text, .markupInText:
                break
            }
        }
        return found
    }
}
