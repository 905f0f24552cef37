import Foundation

/// What the JSON formats share: a document checked for size and depth before it is parsed, and
/// readers that take values of the expected type and nothing else.
enum JSONFeed {
    static func parse(_ data: Data, limits: CatalogLimits) throws(NewsstandError) -> Any {
        try limits.checkSize(of: data)
        // Counted before parsing, so that a hostile nesting never reaches the parser's recursion.
        let depth = data.withUnsafeBytes { raw -> Int in
            var depth = 0, deepest = 0
            var inString = false, escaped = false
            for byte in raw {
                if inString {
                    if escaped { escaped = false }
                    else if byte == UInt8(ascii: "\\") { escaped = true }
                    else if byte == UInt8(ascii: "\"") { inString = false }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                    if depth > deepest { deepest = depth }
                    if deepest > limits.maximumDepth { return deepest }
                case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
                default: break
                }
            }
            return deepest
        }
        guard depth <= limits.maximumDepth else {
            throw NewsstandError.invalidCatalog("nests deeper than \(limits.maximumDepth) levels.")
        }
        do {
            return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw NewsstandError.invalidCatalog("is not valid JSON.")
        }
    }

    static func string(_ value: Any?) -> String? {
        guard let string = value as? String else { return nil }
        return string
    }

    /// A finite number within a sane range (a size, a price): absurd values read as absent.
    static func number(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        let double = number.doubleValue
        guard double.isFinite, abs(double) < 1e15 else { return nil }
        return double
    }

    static func size(_ value: Any?) -> Int64? {
        guard let number = number(value), number > 0, number == number.rounded() else { return nil }
        return Int64(number)
    }

    /// A `rel` that is a string or an array of strings.
    static func rels(_ value: Any?) -> [String] {
        if let string = value as? String { return [string] }
        if let array = value as? [Any] { return array.compactMap { $0 as? String } }
        return []
    }

    /// Names from a string, an object with `name`, or an array of either.
    static func names(_ value: Any?) -> [String] {
        if let string = value as? String { return [string] }
        if let object = value as? [String: Any], let name = object["name"] as? String { return [name] }
        if let array = value as? [Any] { return array.flatMap { names($0) } }
        return []
    }

    /// A title that may be a string or a language map (`{"en": "…"}`).
    static func text(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let map = value as? [String: Any] {
            return (map["en"] as? String) ?? map.keys.sorted().lazy.compactMap { map[$0] as? String }.first
        }
        return nil
    }
}
