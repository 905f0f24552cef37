import Foundation

/// What the first bytes of a document say about it, read once for every format to look at.
public struct DocumentSniff: Sendable {
    public enum Shape: Sendable, Equatable {
        case xml(root: String, namespace: String?)
        case binaryPropertyList
        case jsonArray
        case jsonObject(keys: [String])
        case unknown
    }

    public let shape: Shape
    /// For an array of objects, the first object's keys found in the first bytes.
    public private(set) var firstElementKeys: [String] = []

    public init(_ data: Data) {
        let head = data.prefix(8192)
        if head.starts(with: Array("bplist00".utf8)) {
            shape = .binaryPropertyList
            return
        }
        var bytes = Array(head)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard let first = bytes.firstIndex(where: { !XMLText.isSpace($0) }) else {
            shape = .unknown
            return
        }
        switch bytes[first] {
        case UInt8(ascii: "["):
            shape = .jsonArray
            if let object = bytes[(first + 1)...].firstIndex(where: { !XMLText.isSpace($0) }), bytes[object] == UInt8(ascii: "{") {
                firstElementKeys = Self.topLevelKeys(bytes[object...])
            }
        case UInt8(ascii: "{"):
            shape = .jsonObject(keys: Self.topLevelKeys(bytes[first...]))
        case UInt8(ascii: "<"):
            shape = Self.xmlRoot(bytes[first...]) ?? .unknown
        default:
            shape = .unknown
        }
    }

    /// The first element's local name and the namespace its prefix (or the default) is bound to
    /// in that tag; prolog, comments and `<?xml-stylesheet?>` are skipped.
    private static func xmlRoot(_ bytes: ArraySlice<UInt8>) -> Shape? {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard let open = bytes[index...].firstIndex(of: UInt8(ascii: "<")), open + 1 < bytes.endIndex else { return nil }
            let next = bytes[open + 1]
            if next == UInt8(ascii: "?") || next == UInt8(ascii: "!") {
                // Declarations and comments: skip to the end of this one.
                let closer: [UInt8] = bytes[open...].starts(with: "<!--".utf8) ? Array("-->".utf8) : [UInt8(ascii: ">")]
                var position = open + 2
                while position + closer.count <= bytes.endIndex, !bytes[position..<position + closer.count].elementsEqual(closer) {
                    position += 1
                }
                index = position + closer.count
                continue
            }
            guard let close = bytes[open...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
            let tag = String(decoding: bytes[(open + 1)..<close], as: UTF8.self)
            let name = tag.prefix { !$0.isWhitespace && $0 != "/" }
            let colon = name.firstIndex(of: ":")
            let prefix = colon.map { String(name[..<$0]) } ?? ""
            let local = colon.map { String(name[name.index(after: $0)...]) } ?? String(name)
            let attribute = prefix.isEmpty ? "xmlns=" : "xmlns:\(prefix)="
            var namespace: String?
            if let range = tag.range(of: attribute) {
                let rest = tag[range.upperBound...]
                if let quote = rest.first, quote == "\"" || quote == "'" {
                    namespace = String(rest.dropFirst().prefix { $0 != quote })
                }
            }
            return .xml(root: local, namespace: namespace)
        }
        return nil
    }

    /// The keys of a JSON object's first level found in the first bytes (enough to tell an
    /// OPDS 2 feed's `metadata` and `publications` from anything else).
    private static func topLevelKeys(_ bytes: ArraySlice<UInt8>) -> [String] {
        var keys: [String] = []
        var depth = 0
        var index = bytes.startIndex
        var inString = false
        var stringStart = 0
        var expectingKey = false
        while index < bytes.endIndex {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 1 && expectingKey { keys.append(String(decoding: bytes[stringStart..<index], as: UTF8.self)) }
                    expectingKey = false
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""):
                    inString = true
                    stringStart = index + 1
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    expectingKey = byte == UInt8(ascii: "{") && depth == 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                case UInt8(ascii: ","):
                    expectingKey = depth == 1
                default:
                    break
                }
            }
            index += 1
        }
        return keys
    }
}
